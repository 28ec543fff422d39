"""Models leaving dagrad: safetensors weights for PyTorch, ONNX graphs for ONNX Runtime."""
