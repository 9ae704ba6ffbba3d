"""The plugin's CUDA kernel (``scatter_add.cu``), the sizes it works with (``plan.py``), compiled at run
time with NVRTC and cached on disk (``cubin_cache.py``), and its launcher (``launcher.py``). Nothing here
imports TensorRT."""
