"""``nn.utils``: gradient clipping and flattening parameters into one vector. Helpers for
other layer families (e.g. sequence packing) add one import line below."""
from .clip_grad import clip_grad_norm_, clip_grad_value_
from .convert_parameters import parameters_to_vector, vector_to_parameters
