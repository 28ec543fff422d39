"""The operations: each a ``Function`` with its forward and its local derivative side by side.

- ``elementwise``: arithmetic, exp/log/trig, activations, where/maximum/clamp, casts
- ``reduction``: sum/mean/var/max/prod, logsumexp, softmax, log-softmax
- ``shape``: reshape/transpose/permute/expand, cat/stack/split, pad/flip/repeat
- ``indexing``: ``__getitem__``, gather, index_select, masked_fill
- ``linalg``: matmul and the fused linear layer
"""
