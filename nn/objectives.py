"""Training objectives for sequence models: next-token prediction (language models, teacher
forcing in encoder-decoders) and masked-language modelling (BERT), plus the unigram entropy
that a language model's loss is compared against.

Every model outputs logits (N, T, V) for token targets (N, T); the loss is the cross-entropy
averaged over the positions that count::

    L = -(1/|P|) Σ_{(n,t) ∈ P} log softmax(logits[n, t])[targets[n, t]]

with P the positions whose target is not ``ignore_index``.
"""
import numpy as np

from dagrad.autograd import as_array, generator

from .functional.loss import cross_entropy


def next_token_pairs(tokens):
    """(inputs, targets) = (tokens[..., :-1], tokens[..., 1:]): the model sees positions 0..t
    and predicts token t+1. The same shift gives the decoder input and the target of an
    encoder-decoder trained with teacher forcing."""
    tokens = as_array(tokens)
    if tokens.shape[-1] < 2:
        raise ValueError(f"next_token_pairs: sequences need at least 2 tokens, got shape "
                         f"{tuple(tokens.shape)}")
    return tokens[..., :-1], tokens[..., 1:]


def sequence_cross_entropy(logits, targets, ignore_index=-100, label_smoothing=0.0,
                           reduction="mean"):
    """Cross-entropy of logits (…, V) against token ids (…) over every position (the formula
    in the module docstring); positions whose target is ``ignore_index`` do not count."""
    targets = as_array(targets)
    if logits.shape[:-1] != targets.shape:
        raise ValueError(f"sequence_cross_entropy: logits {tuple(logits.shape)} need targets of "
                         f"shape {tuple(logits.shape[:-1])}, got {tuple(targets.shape)}")
    out = cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                        ignore_index=ignore_index, label_smoothing=label_smoothing,
                        reduction=reduction)
    return out.reshape(targets.shape) if reduction == "none" else out


next_token_loss = sequence_cross_entropy
masked_lm_loss = sequence_cross_entropy


def token_accuracy(logits, targets, ignore_index=-100):
    """Fraction of counted positions whose most likely token is the target."""
    pred = as_array(logits).argmax(axis=-1)
    targets = as_array(targets)
    keep = targets != ignore_index
    return float((pred == targets)[keep].mean()) if keep.any() else float("nan")


def mask_tokens(tokens, mask_id, vocab_size, mask_prob=0.15, mask_token_prob=0.8,
                random_token_prob=0.1, special_ids=(), ignore_index=-100):
    """BERT's masking for the masked-language-model objective; returns (inputs, labels).

    Each position that is not a special token is selected with probability ``mask_prob``; of
    the selected ones, a fraction ``mask_token_prob`` is replaced by ``mask_id``, a fraction
    ``random_token_prob`` by a random token, and the rest is left unchanged. ``labels`` holds
    the original token at selected positions and ``ignore_index`` elsewhere, so the loss
    (``masked_lm_loss``) counts only the selected positions. Uses autograd's generator
    (``ag.manual_seed``).
    """
    tokens = as_array(tokens)
    rng = generator()
    selectable = ~np.isin(tokens, list(special_ids))
    selected = (rng.random(tokens.shape) < mask_prob) & selectable
    labels = np.where(selected, tokens, ignore_index).astype(np.int64)
    roll = rng.random(tokens.shape)
    inputs = tokens.copy()
    inputs[selected & (roll < mask_token_prob)] = mask_id
    swap = selected & (roll >= mask_token_prob) & (roll < mask_token_prob + random_token_prob)
    inputs[swap] = rng.integers(0, vocab_size, int(swap.sum()))
    return inputs, labels


def unigram_entropy(tokens, vocab_size=None):
    """H = -Σ_v p(v) log p(v) in nats, p the token frequencies in ``tokens``: the loss of the
    best model that ignores context (predicts every token from its frequency alone). A
    language model has learned something from context when its loss is below H."""
    counts = np.bincount(as_array(tokens).reshape(-1), minlength=vocab_size or 0)
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum())
