"""BERT in dagrad.d2l: the input representation, the model against PyTorch's own Transformer
encoder layer given the same weights, the heads by hand, the WikiText-2 pipeline on a small
file in the book's layout (pretraining on it lowers the masked-language-model loss), and the
book's pretraining section giving PyTorch's numbers."""
import random

import numpy as np
import pytest

from dagrad import d2l, torch
from dagrad.torch import nn
from tests.facade.book_data import write_wikitext
from tests.facade.book_programs import compare
from tests.helpers import torch_or_skip


def test_get_tokens_and_segments_marks_the_two_sentences():
    tokens, segments = d2l.get_tokens_and_segments(["a", "b"], ["c"])
    assert tokens == ["<cls>", "a", "b", "<sep>", "c", "<sep>"]
    assert segments == [0, 0, 0, 0, 1, 1]
    assert d2l.get_tokens_and_segments(["a"]) == (["<cls>", "a", "<sep>"], [0, 0, 0])


def _small_bert():
    torch.manual_seed(0)
    net = d2l.BERTModel(vocab_size=20, num_hiddens=8, ffn_num_hiddens=16, num_heads=2,
                        num_blks=2, dropout=0, max_len=16)
    tokens = torch.tensor([[1, 5, 7, 2, 9, 3, 0], [1, 4, 4, 2, 6, 0, 0]])
    segments = torch.tensor([[0, 0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 1, 1, 1]])
    valid_lens = torch.tensor([7.0, 5.0])
    pred_positions = torch.tensor([[1, 4, 5], [2, 1, 3]])
    net(tokens, segments, valid_lens, pred_positions)            # the lazy layers take sizes
    return net, (tokens, segments, valid_lens, pred_positions)


def _pytorch_bert(real, net, tokens, segments, valid_lens, pred_positions):
    """The book's BERT written with PyTorch's nn.TransformerEncoderLayer (post-norm, ReLU
    feed-forward, biased attention: the book's TransformerEncoderBlock with use_bias=True)
    holding ``net``'s weights; returns (encodings, MLM scores, NSP scores)."""
    sd = {k: real.tensor(v.numpy()) for k, v in net.state_dict().items()}
    tokens, segments = (real.tensor(a.numpy()) for a in (tokens, segments))
    T = tokens.shape[1]
    X = (sd["encoder.token_embedding.weight"][tokens]
         + sd["encoder.segment_embedding.weight"][segments] + sd["encoder.pos_embedding"][:, :T])
    padding = real.arange(T)[None, :] >= real.tensor(valid_lens.numpy())[:, None]
    for i in range(len(net.encoder.blks)):
        p = f"encoder.blks.{i}."
        layer = real.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        with real.no_grad():
            for name in ("weight", "bias"):
                getattr(layer.self_attn, f"in_proj_{name}").copy_(real.cat(
                    [sd[p + f"attention.W_{w}.{name}"] for w in "qkv"]))
                getattr(layer.self_attn.out_proj, name).copy_(sd[p + f"attention.W_o.{name}"])
                getattr(layer.linear1, name).copy_(sd[p + f"ffn.dense1.{name}"])
                getattr(layer.linear2, name).copy_(sd[p + f"ffn.dense2.{name}"])
                getattr(layer.norm1, name).copy_(sd[p + f"addnorm1.ln.{name}"])
                getattr(layer.norm2, name).copy_(sd[p + f"addnorm2.ln.{name}"])
        X = layer(X, src_key_padding_mask=padding)    # parameters need grad: no fast path
    F = real.nn.functional
    rows = real.arange(2).repeat_interleave(pred_positions.shape[1])
    masked = X[rows, real.tensor(pred_positions.numpy()).reshape(-1)].reshape(2, -1, 8)
    h = F.relu(F.linear(masked, sd["mlm.mlp.0.weight"], sd["mlm.mlp.0.bias"]))
    h = F.layer_norm(h, (8,), sd["mlm.mlp.2.weight"], sd["mlm.mlp.2.bias"])
    mlm = F.linear(h, sd["mlm.mlp.3.weight"], sd["mlm.mlp.3.bias"])
    cls = real.tanh(F.linear(X[:, 0], sd["hidden.0.weight"], sd["hidden.0.bias"]))
    nsp = F.linear(cls, sd["nsp.output.weight"], sd["nsp.output.bias"])
    return X, mlm, nsp


def test_bert_model_is_pytorchs_transformer_encoder_given_the_same_weights():
    real = torch_or_skip()
    net, inputs = _small_bert()
    net.eval()
    encoded, mlm, nsp = net(*inputs)
    assert (encoded.shape, mlm.shape, nsp.shape) == ((2, 7, 8), (2, 3, 20), (2, 2))
    expected = _pytorch_bert(real, net, *inputs)
    valid = [(0, slice(None)), (1, slice(0, 5))]        # PyTorch leaves padded rows undefined
    for b, rows in valid:
        np.testing.assert_allclose(encoded.detach().numpy()[b, rows],
                                   expected[0].detach().numpy()[b, rows], atol=2e-5)
    np.testing.assert_allclose(mlm.detach().numpy(), expected[1].detach().numpy(), atol=2e-5)
    np.testing.assert_allclose(nsp.detach().numpy(), expected[2].detach().numpy(), atol=2e-5)


def test_the_heads_read_the_positions_and_the_cls_encoding():
    """MaskLM scores row (b, j) from X[b, pred_positions[b, j]]; without positions the MLM
    output is None and the NSP scores come from position 0 only."""
    net, (tokens, segments, valid_lens, positions) = _small_bert()
    X = torch.randn(2, 7, 8)
    scores = net.mlm(X, positions)
    by_hand = net.mlm.mlp(torch.stack([X[b, positions[b]] for b in range(2)]))
    np.testing.assert_allclose(scores.detach().numpy(), by_hand.detach().numpy(), atol=1e-6)
    encoded, mlm, nsp = net(tokens, segments, valid_lens)
    assert mlm is None
    np.testing.assert_allclose(nsp.detach().numpy(),
                               net.nsp(net.hidden(encoded[:, 0])).detach().numpy(), atol=1e-6)


def test_bert_trains_through_its_position_embedding():
    net, inputs = _small_bert()
    _, mlm, nsp = net(*inputs)
    (mlm.sum() + nsp.sum()).backward()
    grad = net.encoder.pos_embedding.grad.numpy()
    assert np.abs(grad[0, :7]).sum() > 0 and np.abs(grad[0, 7:]).sum() == 0


def test_load_data_wiki_reads_the_books_layout_and_pretraining_lowers_the_loss(tmp_path):
    write_wikitext(tmp_path)
    random.seed(0)
    torch.manual_seed(0)
    max_len, batch_size = 24, 16
    train_iter, vocab = d2l.load_data_wiki(batch_size, max_len, root=str(tmp_path))
    assert {"<cls>", "<mask>", "<pad>", "<sep>", "<unk>", "traveller"} <= set(vocab.idx_to_token)
    tokens, segments, valid_lens, positions, weights, labels, nsp = next(iter(train_iter))
    P = round(0.15 * max_len)
    assert tuple(tokens.shape) == (batch_size, max_len) and tuple(positions.shape) == (
        batch_size, P)
    assert valid_lens.dtype == torch.float32 and nsp.dtype == torch.int64
    for i in range(batch_size):
        n, words = int(valid_lens[i]), vocab.to_tokens(tokens[i].tolist())
        assert words[0] == "<cls>" and words[n - 1] == "<sep>" and set(words[n:]) <= {"<pad>"}
        k = int(weights[i].sum())
        assert k == max(1, round(0.15 * n)) and weights[i, k:].sum() == 0
        second = segments[i, :n].tolist().index(1)      # B starts after A's "<sep>"
        assert segments[i, n:].sum() == 0
        chosen = positions[i, :k].tolist()            # never "<cls>" or a "<sep>"
        assert chosen == sorted(chosen) and not {0, second - 1, n - 1} & set(chosen)
    masked = sum(vocab.to_tokens(tokens[i].tolist())[j] == "<mask>"
                 for i in range(batch_size) for j in positions[i, :int(weights[i].sum())])
    assert masked > 0.5 * weights.sum().item()          # 80% of the predicted are "<mask>"

    net = d2l.BERTModel(len(vocab), num_hiddens=32, ffn_num_hiddens=64, num_heads=2,
                        num_blks=2, dropout=0)
    loss = nn.CrossEntropyLoss()
    net(tokens, segments, valid_lens, positions)
    trainer = torch.optim.Adam(net.parameters(), lr=0.01)
    mlm_losses = []
    for _ in range(2):
        for batch in train_iter:
            trainer.zero_grad()
            mlm_l, nsp_l, l = d2l._get_batch_loss_bert(net, loss, len(vocab), *batch)  # noqa: E741
            l.backward()
            trainer.step()
            mlm_losses.append(mlm_l.item())
    assert np.mean(mlm_losses[-3:]) < 0.7 * mlm_losses[0]


def test_load_data_wiki_says_where_to_put_the_file(tmp_path):
    with pytest.raises(FileNotFoundError) as error:
        d2l.load_data_wiki(4, 16, root=str(tmp_path))
    message = str(error.value)
    assert str(tmp_path / "wikitext-2" / "wiki.train.tokens") in message
    assert "wikitext-2-v1.zip" in message and "downloads nothing" in message


def test_load_data_wiki_unpacks_the_books_zip(tmp_path):
    import zipfile
    source = write_wikitext(tmp_path / "made")
    with zipfile.ZipFile(tmp_path / "wikitext-2-v1.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.write(source, "wikitext-2/wiki.train.tokens")
    random.seed(0)
    _, vocab = d2l.load_data_wiki(4, 24, root=str(tmp_path))
    assert (tmp_path / "wikitext-2" / "wiki.train.tokens").read_text() == source.read_text()
    assert "traveller" in vocab.idx_to_token


PRETRAINING = """
# §15.10: pretraining BERT on WikiText-2 (smaller, without dropout so both runs draw alike)
import random
random.seed(0)
batch_size, max_len = 16, 24
train_iter, vocab = d2l.load_data_wiki(batch_size, max_len)
net = d2l.BERTModel(len(vocab), num_hiddens=32, ffn_num_hiddens=64, num_heads=2,
                    num_blks=2, dropout=0, max_len=max_len)
loss = nn.CrossEntropyLoss()
batch = next(iter(train_iter))
net(*batch[:3], batch[3])
share(net)
trainer = torch.optim.Adam(net.parameters(), lr=0.01)
mlm_losses, nsp_losses = [], []
for tokens_X, segments_X, valid_lens_x, pred_positions_X, mlm_weights_X, mlm_Y, nsp_y in train_iter:
    trainer.zero_grad()
    mlm_l, nsp_l, l = d2l._get_batch_loss_bert(
        net, loss, len(vocab), tokens_X, segments_X, valid_lens_x, pred_positions_X,
        mlm_weights_X, mlm_Y, nsp_y)
    l.backward()
    trainer.step()
    mlm_losses.append(mlm_l.item())
    nsp_losses.append(nsp_l.item())
encoded_X, _, _ = net(*batch[:3])
result = {"mlm": mlm_losses, "nsp": nsp_losses, "encoded": encoded_X,
          "tokens": batch[0], "vocab": " ".join(vocab.idx_to_token)}
"""


def test_the_books_pretraining_section_gives_pytorchs_numbers(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    write_wikitext(data)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    ours, _ = compare(PRETRAINING, monkeypatch, rtol=2e-4, atol=2e-5)
    assert ours["mlm"][-1] < ours["mlm"][0]
