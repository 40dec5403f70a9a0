# test_cuda_lzss: the lzss codec decoded on the GPU
# (docs/GPU.md). Without CUDA it compiles to a program that reports itself
# skipped; with CUDA but no device it skips at run time.
if(SCZ_HAVE_CUDA AND TARGET test_cuda_lzss)
  target_compile_definitions(test_cuda_lzss PRIVATE SCZ_TEST_CUDA SCZ_HAVE_CUDA)
  target_link_libraries(test_cuda_lzss PRIVATE CUDA::cudart)
endif()
