"""``torch.accelerator`` in dagrad: no accelerator is available; the CPU does the work."""
from ._missing import forward_to


def is_available():
    """False: dagrad computes on the CPU only."""
    return False


def device_count():
    return 0


def current_accelerator(check_available=False):
    """None: there is no accelerator (PyTorch returns None too when none is present)."""
    return None


__getattr__ = forward_to("torch.accelerator")
