# GPU tests (docs/GPU.md): test_cuda_ndzip checks the CUDA backend against the
# CPU. In a build without CUDA it compiles to a program that reports itself
# skipped; with CUDA but no device it skips at run time.
if(SCZ_HAVE_CUDA AND TARGET test_cuda_ndzip)
  target_compile_definitions(test_cuda_ndzip PRIVATE SCZ_TEST_CUDA SCZ_HAVE_CUDA)
  target_link_libraries(test_cuda_ndzip PRIVATE CUDA::cudart)
endif()
