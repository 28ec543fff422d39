"""The decoder-only GPT: it learns the bundled text well below the unigram entropy (held out)
and generates from it; causality, weight tying, initialisation, sampling options, attention
maps; the character tokenizer."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad import optim
from dagrad.nn.models import GPT
from dagrad.nn.objectives import next_token_loss, next_token_pairs, unigram_entropy


@pytest.mark.slow
def test_gpt_learns_the_bundled_text_well_below_the_unigram_entropy_and_generates():
    """Trained on the first 90% of the bundled text (Alice, chapters I-II), measured on the
    last 10%: a model that ignores context can do no better than the unigram entropy."""
    ag.manual_seed(0)
    text = nn.datasets.load_text("alice")
    tok = nn.datasets.CharTokenizer(text)
    data = tok.encode(text)
    split = int(0.9 * len(data))
    train, held_out = data[:split], data[split:]
    block = 32
    model = GPT(tok.vocab_size, block, n_layer=2, n_head=4, n_embd=48)
    optimizer = optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.0)
    warmup = optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 30))
    rng = np.random.default_rng(0)
    for _ in range(300):
        starts = rng.integers(0, len(train) - block - 1, 32)
        x, y = next_token_pairs(np.stack([train[s:s + block + 1] for s in starts]))
        loss = next_token_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        warmup.step()
    entropy = unigram_entropy(train)                   # ≈ 3.05 nats per character
    with ag.no_grad():
        x, y = next_token_pairs(nn.datasets.text_windows(held_out, block))
        held_out_loss = next_token_loss(model.eval()(x), y).item()
    assert held_out_loss < 0.8 * entropy, (held_out_loss, entropy)
    ag.manual_seed(1)
    prompt = "Alice "
    sample = tok.decode(model.generate(tok.encode(prompt), 80, temperature=0.8, top_k=10))
    assert sample.startswith(prompt) and len(sample) == len(prompt) + 80
    words = [w.strip(".,;:!?'\"()") for w in sample.split()]
    known = set(w.strip(".,;:!?'\"()") for w in text.split())
    assert sum(w in known for w in words) >= 0.4 * len(words), sample


def test_gpt_is_causal_a_later_token_never_changes_earlier_logits():
    ag.manual_seed(0)
    model = GPT(11, 8, n_layer=2, n_head=2, n_embd=16).eval()
    a = np.array([[1, 2, 3, 4, 5, 6]])
    b = a.copy()
    b[0, 4:] = [9, 10]
    np.testing.assert_allclose(model(a).numpy()[0, :4], model(b).numpy()[0, :4], rtol=1e-5,
                               atol=1e-6)
    assert not np.allclose(model(a).numpy()[0, 4:], model(b).numpy()[0, 4:])


def test_weight_tying_shares_one_parameter():
    tied = GPT(13, 8, n_layer=1, n_head=2, n_embd=8)
    assert tied.lm_head.weight is tied.wte.weight
    params = list(tied.parameters())
    assert sum(p is tied.wte.weight for p in params) == 1      # counted once by the optimizer
    x = np.array([[1, 2, 3]])
    next_token_loss(tied(x[:, :2]), x[:, 1:]).backward()
    assert tied.wte.weight.grad is not None
    untied = GPT(13, 8, n_layer=1, n_head=2, n_embd=8, tie_weights=False)
    assert untied.lm_head.weight is not untied.wte.weight
    assert len(list(untied.parameters())) == len(params) + 1


def test_gpt_initialisation_follows_gpt2():
    ag.manual_seed(0)
    model = GPT(50, 16, n_layer=8, n_head=4, n_embd=64)
    assert abs(model.wte.weight.numpy().std() - 0.02) < 0.002
    residual = model.blocks.layers[0].linear2.weight.numpy().std()
    assert abs(residual - 0.02 / 4) < 0.001                          # 0.02 / √(2·8)
    assert np.all(model.blocks.layers[0].self_attn.in_proj_bias.numpy() == 0)
    assert np.all(model.blocks.layers[0].norm1.weight.numpy() == 1)


def test_generate_options():
    ag.manual_seed(0)
    model = GPT(7, 4, n_layer=1, n_head=1, n_embd=8)
    idx = np.array([[1, 2], [3, 4]])
    out = model.generate(idx, 6).numpy()                # longer than block_size: context cropped
    assert out.shape == (2, 8) and out.dtype == np.int64
    np.testing.assert_array_equal(out[:, :2], idx)
    greedy = model.generate(idx, 3, temperature=0).numpy()
    logits = model(idx).numpy()[:, -1]
    np.testing.assert_array_equal(greedy[:, 2], logits.argmax(-1))
    ag.manual_seed(3)
    top1 = model.generate(idx, 3, top_k=1).numpy()        # top_k=1 is greedy too
    np.testing.assert_array_equal(top1, greedy)
    assert model.training
    with pytest.raises(ValueError, match="block_size=4"):
        model(np.zeros((1, 5), dtype=np.int64))


def test_generate_samples_from_the_softmax():
    from dagrad.nn.models.gpt import _sample
    rng = np.random.default_rng(0)
    logits = np.log(np.array([[0.7, 0.2, 0.1]] * 20000))
    counts = np.bincount(_sample(logits, 1.0, None, rng)[:, 0], minlength=3) / 20000
    np.testing.assert_allclose(counts, [0.7, 0.2, 0.1], atol=0.015)
    cooled = np.bincount(_sample(logits, 0.5, 2, rng)[:, 0], minlength=3) / 20000
    np.testing.assert_allclose(cooled, [49 / 53, 4 / 53, 0], atol=0.015)   # p² renormalised


def test_attention_maps_of_every_block_can_be_kept():
    model = GPT(9, 6, n_layer=2, n_head=3, n_embd=12)
    with nn.keep_attention_weights(model) as maps:
        model(np.array([[1, 2, 3, 4]]))
    assert sorted(maps) == ["blocks.layers.0.self_attn", "blocks.layers.1.self_attn"]
    w = maps["blocks.layers.1.self_attn"]
    assert w.shape == (1, 3, 4, 4) and np.all(np.triu(w[0, 2], 1) == 0)


# ----------------------------------------------------------------------------- tokenizer
def test_char_tokenizer_round_trip_and_specials():
    tok = nn.datasets.CharTokenizer("hello world", specials=["<pad>", "<bos>"])
    assert tok.itos[:2] == ["<pad>", "<bos>"] and tok.token_id("<bos>") == 1
    assert tok.vocab_size == 2 + len(set("hello world"))
    ids = tok.encode("hold")
    assert ids.dtype == np.int64 and tok.decode(ids) == "hold"
    assert tok.decode(ag.tensor(np.concatenate([[1], ids]))) == "<bos>hold"
    assert tok.decode(np.concatenate([[1], ids, [0]]), skip_specials=True) == "hold"
    with pytest.raises(KeyError, match="'z' is not in the vocabulary"):
        tok.encode("z")
    with pytest.raises(IndexError):
        tok.decode([99])
    unk = nn.datasets.CharTokenizer("abc", unk="<unk>")
    assert unk.decode(unk.encode("abz")) == "ab<unk>"
    assert nn.datasets.CharTokenizer("cab").itos == ["a", "b", "c"]      # sorted: reproducible ids
