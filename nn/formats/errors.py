"""The errors of every file reader: what ``nn.load`` (and ``torch.load``) raise for a file
they cannot read."""
import pickle


class SerializationError(ValueError):
    """The file is not a readable state file (truncated, corrupted, foreign, hostile, or
    declaring more data than it holds)."""


class RefusedGlobalError(SerializationError, pickle.UnpicklingError):
    """A file names a class or function that is not allowed (also the
    ``pickle.UnpicklingError`` PyTorch raises, so code catching that keeps working)."""
