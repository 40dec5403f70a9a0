/* cuda_rt.h for tools/hs_parse_check: the emulated device (emu.h) */
#pragma once
#include "emu.h"
