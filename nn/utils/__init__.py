"""``nn.utils``: gradient clipping, flattening parameters into one vector, the receptive field
of conv/pool stacks and maximum-inner-product search (``nn.utils.retrieval``). Helpers for
other layer families (e.g. sequence packing) add one import line below."""
from .clip_grad import clip_grad_norm_, clip_grad_value_
from .convert_parameters import parameters_to_vector, vector_to_parameters
from . import retrieval
from .receptive_field import (POINTWISE, Geometry, ReceptiveField, receptive_field,
                              receptive_field_table)
