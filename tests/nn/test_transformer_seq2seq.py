"""The encoder-decoder Transformer model: it learns to reverse sequences (held out, greedy
decoding), padding is masked, and decoding behaves."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad import optim
from dagrad.nn.models import Seq2SeqTransformer
from dagrad.nn.objectives import next_token_pairs, sequence_cross_entropy, token_accuracy

LENGTH, SYMBOLS = 10, 12
BOS = SYMBOLS                      # the decoder's start token (the target vocabulary has 13)


def _reversal(n, seed):
    """Sources x (n, 10) of symbols 0..11 and targets (bos, reversed x) (n, 11)."""
    x, y = nn.datasets.reverse_task(n, LENGTH, SYMBOLS, seed=seed)
    return x, np.concatenate([np.full((n, 1), BOS), y], axis=1)


@pytest.mark.slow
def test_learns_to_reverse_sequences_held_out():
    ag.manual_seed(0)
    model = Seq2SeqTransformer(1, 1, 32, 4, SYMBOLS, SYMBOLS + 1, dim_feedforward=64,
                               dropout=0.0)
    optimizer = optim.Adam(model.parameters(), lr=3e-3)
    warmup = optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 50))
    seen = set()
    for step in range(400):
        src, tgt = _reversal(64, seed=step)
        seen.update(map(bytes, src.astype(np.uint8)))
        tgt_in, tgt_out = next_token_pairs(tgt)          # teacher forcing
        loss = sequence_cross_entropy(model(src, tgt_in), tgt_out)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        warmup.step()
    src, tgt = _reversal(500, seed=10_000)
    held_out = np.array([bytes(s) not in seen for s in src.astype(np.uint8)])
    src, tgt = src[held_out], tgt[held_out]              # sequences never trained on
    decoded = model.greedy_decode(src, LENGTH + 1, BOS).numpy()
    accuracy = (decoded[:, 1:] == tgt[:, 1:]).mean()
    assert len(src) > 450 and accuracy >= 0.99, accuracy
    assert model.training                                    # greedy_decode restored the mode
    with ag.no_grad():
        model.eval()
        tgt_in, tgt_out = next_token_pairs(tgt)
        assert token_accuracy(model(src, tgt_in), tgt_out) >= 0.99


def test_padding_positions_do_not_change_the_output():
    ag.manual_seed(0)
    model = Seq2SeqTransformer(1, 1, 16, 2, 8, 8, dim_feedforward=32, dropout=0.0,
                               pad_idx=0).eval()
    assert np.all(model.src_tok_emb.embedding.weight.numpy()[0] == 0)
    src = np.array([[3, 4, 5, 0, 0], [3, 4, 5, 6, 7]])
    tgt = np.array([[1, 2, 6], [1, 2, 6]])
    padded = model(src, tgt).numpy()[0]
    alone = model(src[:1, :3], tgt[:1]).numpy()[0]
    np.testing.assert_allclose(padded, alone, rtol=1e-5, atol=1e-6)


def test_greedy_decode_stops_after_every_sequence_ended_and_fills_with_the_end_symbol():
    ag.manual_seed(0)
    model = Seq2SeqTransformer(1, 1, 16, 2, 6, 6, dim_feedforward=32, dropout=0.0)
    with ag.no_grad():              # make token 5 (the end symbol) the certain prediction
        model.generator.bias.numpy()[...] = 0
        model.generator.weight.numpy()[...] = 0
        model.generator.bias.numpy()[5] = 10.0
    out = model.greedy_decode(np.array([[1, 2, 3], [2, 3, 4]]), 8, start_symbol=0,
                              end_symbol=5).numpy()
    np.testing.assert_array_equal(out, [[0, 5], [0, 5]])
    one = model.greedy_decode(np.array([1, 2, 3]), 4, start_symbol=0).numpy()
    np.testing.assert_array_equal(one, [0, 5, 5, 5])


def test_sequence_first_layout_gives_the_same_logits():
    ag.manual_seed(0)
    first = Seq2SeqTransformer(1, 1, 16, 2, 7, 7, dim_feedforward=32, dropout=0.0)
    second = Seq2SeqTransformer(1, 1, 16, 2, 7, 7, dim_feedforward=32, dropout=0.0,
                                batch_first=False)
    second.load_state_dict(first.state_dict())
    src, tgt = np.array([[1, 2, 3, 4], [4, 3, 2, 1]]), np.array([[0, 1, 2], [0, 2, 2]])
    np.testing.assert_allclose(second(src.T, tgt.T).numpy().transpose(1, 0, 2),
                               first(src, tgt).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(second.greedy_decode(src.T, 4, 0).numpy().T,
                                  first.greedy_decode(src, 4, 0).numpy())


def test_module_paths_name_the_transformer_parts():
    model = Seq2SeqTransformer(1, 2, 8, 2, 5, 5, dim_feedforward=16)
    names = dict(model.named_parameters())
    assert "transformer.decoder.layers.1.multihead_attn.in_proj_weight" in names
    assert "src_tok_emb.embedding.weight" in names and "generator.weight" in names
    assert isinstance(model.transformer, nn.Transformer)
