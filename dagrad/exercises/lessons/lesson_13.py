"""Lesson 13, vision transformers and GANs: the exercises' expected values, reasons and
misconceptions.

13.1 the patches of a photograph (the channels, both directions, no class token); 13.2 the
shape of the sequence the encoder reads (the class token); 13.3 the size of the attention
matrix; 13.4 the class token's attention weights by hand, against the trained model's (the
missing 1/√d_k); 13.6 the two generator gradients at D = 0.1 (with respect to the logit); 13.7
the best discriminator and L_D at the equilibrium. (Exercises 5 and 8 are open-ended.)
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Exercise, Shape, Value, define

# ------------------------------------------------------------------ 13.1 patches of a photo
PHOTO, PATCH = (3, 224, 224), 16                   # the ViT paper's RGB image and patch side


def photo_patches(channels=None, both_sides=True, class_token=False):
    """[P, C·p·p] of 13.1 by F.unfold (one column per patch), with the exercise's mistakes."""
    from dagrad import autograd as ag
    import dagrad.nn.functional as F
    c = PHOTO[0] if channels is None else channels
    columns = F.unfold(ag.zeros(1, c, *PHOTO[1:]), PATCH, stride=PATCH)   # (1, C·p·p, P)
    count = columns.shape[2] if both_sides else PHOTO[1] // PATCH
    return [count + (1 if class_token else 0), columns.shape[1]]


# ---------------------------------------------------------- 13.2 the encoder's input shape
def encoder_input(g, class_token=True):
    """The shape of [class token; patches] + positions for the probe's batch, by the engine."""
    from dagrad import autograd as ag
    probe, e = g.probe, g.e
    tokens = e
    if class_token:
        tokens = ag.cat([probe.cls_token.expand((e.shape[0], 1, probe.dim)), e], 1)
        tokens = tokens + probe.pos_embed
    return tuple(tokens.shape)


# ------------------------------------------------------------- 13.3 attention matrix sizes
PATCH_SIDES = (1, 2, 4)


def attention_entries(g, class_token=True, squared=True):
    """Entries of one head's attention matrix for an 8x8 digit at each patch side: read from
    the maps a tiny ViT keeps (``class_token=False`` / ``squared=False``: the mistakes)."""
    from dagrad import autograd as ag
    from dagrad import nn
    from dagrad.nn.models import ViT
    entries = []
    for p in PATCH_SIDES:
        tiny = ViT(patch_size=p, dim=8, depth=1, heads=1, mlp_dim=8).eval()
        with ag.no_grad(), nn.keep_attention_weights(tiny) as maps:
            tiny(ag.zeros(1, 64))
        tokens = maps["encoder.layers.0.self_attn"].shape[-1] - (0 if class_token else 1)
        entries.append(tokens ** 2 if squared else tokens)
    return entries


# ----------------------------------------------------- 13.4 the class token's attention
def cls_weights(g, scale="sqrt", softmax=True):
    """softmax(K q / √d_k) from the given head's query and keys, with the mistakes of 13.4:
    ``scale`` "sqrt", "none" or "d" (1/d_k), ``softmax=False`` the raw scores."""
    q, K = g.array("q_cls"), g.array("K")
    d_k = K.shape[-1]
    scores = K @ q / {"sqrt": np.sqrt(d_k), "none": 1.0, "d": d_k}[scale]
    if not softmax:
        return scores
    w = np.exp(scores - scores.max())
    return w / w.sum()


TOKEN = (lambda i: "the class token" if i == 0 else f"patch {i}",)

# -------------------------------------------------------------- 13.6 the generator's gradients
D_FAKE = 0.1                                     # D(G(z)) of the exercise


def generator_gradients(g, wrt="logit"):
    """[∂/∂ℓ log(1 − σ(ℓ)), ∂/∂ℓ (−log σ(ℓ))] at σ(ℓ) = D_FAKE, by autograd; ``wrt="D"``
    differentiates with respect to D instead (the mistake)."""
    from dagrad import autograd as ag

    def derivative(loss_of_d):
        if wrt == "D":
            x = ag.tensor(D_FAKE, dtype=ag.float64, requires_grad=True)
            d = x
        else:
            x = ag.tensor(np.log(D_FAKE / (1 - D_FAKE)), dtype=ag.float64, requires_grad=True)
            d = ag.sigmoid(x)
        grad, = ag.grad(loss_of_d(d), [x])
        return grad.item()

    return [derivative(lambda d: ag.log(1 - d)), derivative(lambda d: -ag.log(d))]


# ------------------------------------------------------------ 13.7 the best discriminator
P_DATA, P_G = 0.3, 0.1


def equilibrium_loss(terms=2, log=np.log):
    """L_D when D outputs ½ everywhere: −log ½ for the real term and −log(1 − ½) for the fake
    one, by the engine's binary cross-entropy (``terms=1``, ``log=np.log2``: the mistakes)."""
    from dagrad import autograd as ag
    import dagrad.nn.functional as F
    zero = ag.zeros(1, dtype=ag.float64)          # logit 0: D = σ(0) = ½
    loss = (F.binary_cross_entropy_with_logits(zero, ag.ones_like(zero))
            + F.binary_cross_entropy_with_logits(zero, ag.zeros_like(zero)))
    return loss.item() / 2 * terms * (np.log(2) / log(2) if log is not np.log else 1.0)


def best_discriminator(real=P_DATA, fake=P_G):
    return real / (real + fake)


define(
    Exercise("13.1", Value(
        "patch_counts", lambda g: photo_patches(), name="[P, numbers per patch]",
        coords=(lambda i: ("the number of patches P", "the length of a flattened patch")[i],),
        misconceptions=[
            Misconception("channels_forgotten", lambda g: photo_patches(channels=1),
                          "yours counts p·p numbers per patch: an RGB patch has C = 3 numbers "
                          "per pixel, so it flattens to C·p·p"),
            Misconception("one_side_only", lambda g: photo_patches(both_sides=False),
                          "yours counts the patches along one side, H/p: the image is cut in "
                          "both directions, P = (H/p)(W/p)"),
            Misconception("class_token_counted", lambda g: photo_patches(class_token=True),
                          "yours counts the class token: it is added to the sequence after the "
                          "image is cut, it is not a patch of the image")],
        rule="P = (H/p)(W/p) patches, each of C·p·p numbers, with C = 3, H = W = 224, p = 16",
        why="P = (H/p)(W/p) = 14 · 14, and a patch holds C·p·p = 3 · 16 · 16 numbers")),

    Exercise("13.2", Shape(
        "encoder_input_shape", encoder_input, name="the encoder's input",
        misconceptions=[
            Misconception("no_class_token", lambda g: encoder_input(g, class_token=False),
                          "yours leaves out the class token: ag.cat puts it in front of the "
                          "patch tokens, so the encoder reads P + 1 tokens"),
            Misconception("patch_length_as_width",
                          lambda g: encoder_input(g)[:2] + (g.probe.in_channels * g.probe.patch_size ** 2,),
                          "yours gives a token the width of a flattened patch (C·p·p = 4): the "
                          "patch embedding maps every patch to the model's width d")],
        rule="(batch, tokens, width): the four images, the 16 patches plus the class token, the "
             "probe's width d",
        why="4 images; 16 patches plus the class token; the probe's width is 16")),

    Exercise("13.3", Value(
        "attention_entries", attention_entries, name="the entries of one attention matrix",
        coords=(lambda i: f"patch size {PATCH_SIDES[i]}",),
        misconceptions=[
            Misconception("no_class_token", lambda g: attention_entries(g, class_token=False),
                          "yours counts the patch tokens only: the class token is a query and "
                          "a key too, so the matrix is (P + 1) × (P + 1)"),
            Misconception("not_squared", lambda g: attention_entries(g, squared=False),
                          "yours counts the tokens: every token (a query) has a weight for "
                          "every token (a key), (P + 1)² entries")],
        rule="(P + 1)² entries with P = (8/p)² patches, for p = 1, 2, 4",
        why="(P + 1)² with P = (8/p)² patches: the cost of attention grows with the square of "
            "the number of tokens, so halving the patch side multiplies it by about 16")),

    Exercise("13.4", Value(
        "cls_attention_row", lambda g: g.array("weights"), tol=1e-4,
        name="the class token's attention weights", coords=TOKEN,
        misconceptions=[
            Misconception("missing_scale", lambda g: cls_weights(g, scale="none"),
                          "yours leaves out the 1/√d_k: the scores are q·k / √d_k, with d_k the "
                          "width of one head; without it the softmax is sharper than the "
                          "model's"),
            Misconception("scaled_by_d_k", lambda g: cls_weights(g, scale="d"),
                          "yours divides the scores by d_k: the scale is 1/√d_k, which keeps "
                          "q·k's variance near 1 when q and k have entries of variance 1"),
            Misconception("scores_not_softmaxed", lambda g: cls_weights(g, softmax=False),
                          "yours are the scores q·k/√d_k: the weights are their softmax over "
                          "the keys, positive and summing to 1")],
        rule="a = softmax(K q / √d_k), the softmax over the 17 keys, with d_k = K.shape[1]",
        why="the class token's row of softmax(Q Kᵀ / √d_k): a = softmax(K q / √d_k), what "
            "nn.MultiheadAttention computes for each head")),

    Exercise("13.6", Value(
        "generator_grads", lambda g: generator_gradients(g), tol=1e-6,
        name="[minimax, non-saturating] ∂L_G/∂ℓ",
        coords=(lambda i: ("the minimax loss log(1 − D)", "the non-saturating loss −log D")[i],),
        misconceptions=[
            Misconception("swapped_losses", lambda g: generator_gradients(g)[::-1],
                          "yours has the two the other way round: the minimax loss log(1 − D) "
                          "is the one whose gradient vanishes when D rejects the sample"),
            Misconception("derivative_wrt_D", lambda g: generator_gradients(g, wrt="D"),
                          "yours differentiates with respect to D: the question asks for ∂/∂ℓ, "
                          "and D = σ(ℓ) brings in the factor dD/dℓ = D (1 − D)")],
        rule="with D = σ(ℓ), dD/dℓ = D (1 − D): differentiate log(1 − σ(ℓ)) and −log σ(ℓ) by "
             "the chain rule, at D = 0.1",
        why="d/dℓ log(1 − σ(ℓ)) = −σ(ℓ) = −D, and d/dℓ (−log σ(ℓ)) = −(1 − σ(ℓ)) = −(1 − D)")),

    Exercise("13.7", Value(
        "best_discriminator",
        lambda g: [best_discriminator(), equilibrium_loss()], tol=1e-4,
        name="[D*(x), L_D at the equilibrium]",
        coords=(lambda i: ("D*(x)", "L_D at the equilibrium")[i],),
        misconceptions=[
            Misconception("densities_swapped",
                          lambda g: [best_discriminator(P_G, P_DATA), equilibrium_loss()],
                          "yours is p_G / (p_data + p_G), the probability that x is fake: D "
                          "outputs the probability that x is real"),
            Misconception("one_term_of_L_D",
                          lambda g: [best_discriminator(), equilibrium_loss(terms=1)],
                          "yours counts only one of L_D's two terms: the real data's −log D "
                          "and the fake samples' −log(1 − D) both count at the equilibrium"),
            Misconception("log_base_2",
                          lambda g: [best_discriminator(), equilibrium_loss(log=np.log2)],
                          "yours takes the logarithm in base 2: the cross-entropy here uses the "
                          "natural logarithm")],
        rule="at each x, minimise −[p_data log D + p_G log(1 − D)] over D (set the derivative "
             "to 0); at the equilibrium p_G = p_data, so D = ½ in both of L_D's terms",
        why="D* = p_data / (p_data + p_G); at the equilibrium D* = 1/2 everywhere and "
            "L_D = −log ½ − log ½ = 2 log 2")),
)
