"""Everything around the plugin: the graph inputs, the TensorRT network and its engine, running
it in place, the NumPy reference and validation, and the command line's plumbing.

Only ``trt_network`` imports TensorRT; every other module runs without it."""
