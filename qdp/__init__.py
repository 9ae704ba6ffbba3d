"""The ahead-of-time route (``--aot``): the same scatter-add as a quickly deployable plugin
(``plugin.py``, needs ``tensorrt.plugin``) whose kernel's PTX (``aot_kernel.py``, no TensorRT)
TensorRT stores in the engine, so that the engine runs without Python."""
