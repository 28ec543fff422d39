"""W5's floor: the Transformer encoder step of ``benchmarks.transformer_step`` written by hand in
NumPy, forward and backward derived on paper, for speed (float32 throughout, batched products,
the three attention projections as one product, in-place updates where a buffer is free).

One post-norm layer, x (N, L, D), H heads of size d = D/H::

    [q, k, v] = x Wᵢₙᵀ + bᵢₙ                      (N, L, 3D), each split into (N, H, L, d)
    P = softmax(q kᵀ / √d)                        (N, H, L, L)
    a = (P v, heads joined) Wₒᵀ + bₒ
    y₁ = LN₁(x + a),   y₂ = LN₂(y₁ + W₂ relu(W₁ y₁ + b₁) + b₂)

Backward of LN (x̂ the normalised input, r = 1/σ, γ the scale):
    dx = r (dx̂ - mean(dx̂) - x̂ mean(dx̂ x̂)),   dx̂ = dy γ
Backward of softmax: dS = P (dP - Σⱼ dP P).
"""
import numpy as np

EPS = 1e-5


def _layer_norm(x, weight, bias):
    """(y, x̂, r) of a layer norm over the last axis."""
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    r = 1.0 / np.sqrt(var + np.float32(EPS))
    xhat = centred
    xhat *= r
    return xhat * weight + bias, xhat, r


def _layer_norm_grad(dy, xhat, r, weight, grads, prefix):
    """dx of a layer norm; its parameters' gradients go to ``grads``."""
    grads[prefix + ".weight"] = np.einsum("nld,nld->d", dy, xhat)
    grads[prefix + ".bias"] = dy.sum(axis=(0, 1))
    dxhat = dy * weight
    mean_d = dxhat.mean(axis=-1, keepdims=True)
    mean_dx = np.mean(dxhat * xhat, axis=-1, keepdims=True)
    dxhat -= mean_d
    dxhat -= xhat * mean_dx
    dxhat *= r
    return dxhat


def _flat(a):
    return a.reshape(-1, a.shape[-1])


def _layer_forward(x, p, heads):
    """One encoder layer's output and what its backward reads."""
    n, length, d_model = x.shape
    size = d_model // heads
    qkv = x @ p["self_attn.in_proj_weight"].T
    qkv += p["self_attn.in_proj_bias"]
    # (N, L, 3, H, d) -> (3, N, H, L, d): q, k, v per head without copies of their own
    q, k, v = qkv.reshape(n, length, 3, heads, size).transpose(2, 0, 3, 1, 4)
    scores = q @ k.transpose(0, 1, 3, 2)
    scores *= np.float32(1 / np.sqrt(size))
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    probs = scores
    heads_out = (probs @ v).transpose(0, 2, 1, 3).reshape(n, length, d_model)
    attended = heads_out @ p["self_attn.out_proj.weight"].T
    attended += p["self_attn.out_proj.bias"]
    attended += x
    y1, xhat1, r1 = _layer_norm(attended, p["norm1.weight"], p["norm1.bias"])
    hidden = y1 @ p["linear1.weight"].T
    hidden += p["linear1.bias"]
    np.maximum(hidden, 0, out=hidden)
    ff = hidden @ p["linear2.weight"].T
    ff += p["linear2.bias"]
    ff += y1
    y2, xhat2, r2 = _layer_norm(ff, p["norm2.weight"], p["norm2.bias"])
    saved = (x, q, k, v, probs, heads_out, y1, xhat1, r1, hidden, xhat2, r2)
    return y2, saved


def _layer_backward(dy2, saved, p, heads, grads, prefix):
    """dL/dx of one layer; its parameters' gradients go to ``grads`` under ``prefix``."""
    x, q, k, v, probs, heads_out, y1, xhat1, r1, hidden, xhat2, r2 = saved
    n, length, d_model = x.shape
    size = d_model // heads
    g = lambda name: prefix + name          # noqa: E731
    dff = _layer_norm_grad(dy2, xhat2, r2, p["norm2.weight"], grads, g("norm2"))
    grads[g("linear2.weight")] = _flat(dff).T @ _flat(hidden)
    grads[g("linear2.bias")] = dff.sum(axis=(0, 1))
    dhidden = dff @ p["linear2.weight"]
    dhidden *= hidden > 0
    grads[g("linear1.weight")] = _flat(dhidden).T @ _flat(y1)
    grads[g("linear1.bias")] = dhidden.sum(axis=(0, 1))
    dy1 = dhidden @ p["linear1.weight"]
    dy1 += dff                                   # the residual path
    da = _layer_norm_grad(dy1, xhat1, r1, p["norm1.weight"], grads, g("norm1"))
    grads[g("self_attn.out_proj.weight")] = _flat(da).T @ _flat(heads_out)
    grads[g("self_attn.out_proj.bias")] = da.sum(axis=(0, 1))
    dheads = (da @ p["self_attn.out_proj.weight"]).reshape(n, length, heads, size)
    dheads = dheads.transpose(0, 2, 1, 3)        # (N, H, L, d)
    dprobs = dheads @ v.transpose(0, 1, 3, 2)
    dv = probs.transpose(0, 1, 3, 2) @ dheads
    dprobs -= np.sum(dprobs * probs, axis=-1, keepdims=True)
    dprobs *= probs
    dprobs *= np.float32(1 / np.sqrt(size))
    dq = dprobs @ k
    dk = dprobs.transpose(0, 1, 3, 2) @ q
    dqkv = np.stack([dq, dk, dv]).transpose(1, 3, 0, 2, 4).reshape(n * length, 3 * d_model)
    grads[g("self_attn.in_proj_weight")] = dqkv.T @ _flat(x)
    grads[g("self_attn.in_proj_bias")] = dqkv.sum(axis=0)
    dx = (dqkv @ p["self_attn.in_proj_weight"]).reshape(x.shape)
    dx += da                                     # the residual path
    return dx


def loss_and_grads(state, x, y, layers, heads):
    """MSE loss of the layer stack on (x, y) and {name: dL/dname} under PyTorch's names."""
    saved = []
    h = x
    for i in range(layers):
        params = {k.split(".", 2)[2]: v for k, v in state.items()
                  if k.startswith(f"layers.{i}.")}
        h, s = _layer_forward(h, params, heads)
        saved.append((params, s))
    diff = h - y
    loss = float(np.mean(diff * diff))
    grads = {}
    dh = diff * np.float32(2 / diff.size)
    for i in range(layers - 1, -1, -1):
        params, s = saved[i]
        dh = _layer_backward(dh, s, params, heads, grads, f"layers.{i}.")
    return loss, grads


def adam(state, lr, betas=(0.9, 0.999), eps=1e-8):
    """PyTorch's Adam (no weight decay) on a dict of arrays: ``update(grads)`` steps in place."""
    m = {k: np.zeros_like(v) for k, v in state.items()}
    v2 = {k: np.zeros_like(v) for k, v in state.items()}
    count = [0]

    def update(grads):
        count[0] += 1
        t = count[0]
        step_size = lr / (1 - betas[0] ** t)
        root_correction = np.sqrt(1 - betas[1] ** t)
        for name, g in grads.items():
            m[name] *= betas[0]
            m[name] += (1 - betas[0]) * g
            v2[name] *= betas[1]
            g *= g
            g *= 1 - betas[1]
            v2[name] += g
            denom = np.sqrt(v2[name])
            denom /= root_correction
            denom += eps
            np.divide(m[name], denom, out=denom)
            denom *= step_size
            state[name] -= denom
    return update
