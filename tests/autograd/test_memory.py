"""autograd.memory: freed memory stays in the process between steps (glibc)."""
import platform

from dagrad.autograd.memory import keep_freed_memory


def test_thresholds_are_set_on_glibc_and_the_environment_can_refuse(monkeypatch):
    monkeypatch.delenv("DAGRAD_KEEP_FREED_MEMORY", raising=False)
    glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert keep_freed_memory() is glibc
    monkeypatch.setenv("DAGRAD_KEEP_FREED_MEMORY", "0")
    assert keep_freed_memory() is False
