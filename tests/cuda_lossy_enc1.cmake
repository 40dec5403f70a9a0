# test_cuda_lossy_enc1: the level-1 GPU writer's estimate, decision and
# sweeps against the CPU writer (docs/GPU.md "Level 1 on the GPU:
# compression"). Without CUDA it compiles to a program that reports itself
# skipped; with CUDA but no device it skips at run time.
if(SCZ_HAVE_CUDA AND TARGET test_cuda_lossy_enc1)
  target_compile_definitions(test_cuda_lossy_enc1 PRIVATE SCZ_TEST_CUDA SCZ_HAVE_CUDA)
  target_link_libraries(test_cuda_lossy_enc1 PRIVATE CUDA::cudart)
endif()
