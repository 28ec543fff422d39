"""dagrad.d2l's pieces behave as the book's library: the alias block, the shape checks, the
vocabulary, BLEU, the masks, the attention layers (against PyTorch's given the same weights),
and the data files' errors, which give the exact path to put a file at."""
import math
import zipfile

import numpy as np
import pytest

from dagrad import d2l, torch
from dagrad.torch import nn
from tests.facade.book_data import write_fra_eng, write_time_machine
from tests.helpers import torch_or_skip


def test_the_alias_block_calls_the_torch_functions_and_tensor_methods():
    x = d2l.reshape(d2l.arange(6, dtype=d2l.float32), (2, 3))
    assert d2l.size(x) == 6 and d2l.numpy(x).shape == (2, 3)
    assert d2l.reduce_sum(x).item() == 15 and d2l.reduce_mean(x, 0).tolist() == [1.5, 2.5, 3.5]
    assert d2l.argmax(x, axis=1).tolist() == [2, 2] and d2l.astype(x, d2l.int64).dtype == d2l.int64
    assert d2l.transpose(x).shape == (3, 2) and d2l.swapaxes(x, 0, 1).shape == (3, 2)
    assert d2l.expand_dims(x, 0).shape == (1, 2, 3) and d2l.repeat(x, 2, 1).shape == (4, 3)
    assert d2l.concat([x, x], 1).shape == (2, 6) and d2l.stack([x, x]).shape == (2, 2, 3)
    assert d2l.matmul(x, d2l.ones(3, 1)).tolist() == [[3.0], [12.0]]
    assert d2l.batch_matmul(d2l.zeros(2, 1, 3), d2l.ones(2, 3, 4)).shape == (2, 1, 4)
    np.testing.assert_allclose(d2l.exp(d2l.log(d2l.tensor([2.0]))).numpy(), [2.0], rtol=1e-6)
    assert d2l.tanh(d2l.tensor(0.0)).item() == 0 and d2l.int32 == torch.int32
    assert d2l.normal(0, 1, (3, 2)).shape == (3, 2) and d2l.rand(2).shape == (2,)


def test_check_shape_and_check_len():
    d2l.check_shape(torch.zeros(2, 3), (2, 3))
    d2l.check_len([1, 2], 2)
    with pytest.raises(AssertionError, match=r"shape \(2, 3\) != expected shape \(3, 2\)"):
        d2l.check_shape(torch.zeros(2, 3), (3, 2))
    with pytest.raises(AssertionError, match="length 1 != expected length 2"):
        d2l.check_len([1], 2)


def test_vocab_numbers_tokens_as_the_book_does():
    vocab = d2l.Vocab([["b", "a", "b"], ["c", "b"]], min_freq=2, reserved_tokens=["<pad>"])
    assert vocab.idx_to_token == ["<pad>", "<unk>", "b"]
    assert vocab["b"] == 2 and vocab["a"] == vocab.unk == 1 and vocab[["b", "zz"]] == [2, 1]
    assert vocab.to_tokens([2, 0]) == ["b", "<pad>"] and vocab.to_tokens(2) == "b"
    assert vocab.token_freqs[0] == ("b", 3) and len(vocab) == 3


def test_bleu():
    assert d2l.bleu("il est calme .", "il est calme .", k=2) == 1.0
    # 2 of 3 unigrams, 1 of 2 bigrams, shorter than the label by 1: e^(1-4/3)·(2/3)^½·(1/2)^¼
    expected = math.exp(1 - 4 / 3) * (2 / 3) ** 0.5 * 0.5 ** 0.25
    assert d2l.bleu("il est .", "il est calme !", k=2) == pytest.approx(expected)


def test_sequence_mask_and_masked_softmax():
    X = d2l.sequence_mask(torch.ones(2, 3), torch.tensor([1, 2]))
    assert X.tolist() == [[1, 0, 0], [1, 1, 0]]
    weights = d2l.masked_softmax(torch.zeros(2, 2, 4), torch.tensor([2, 3]))
    np.testing.assert_allclose(weights.numpy()[0], [[0.5, 0.5, 0, 0]] * 2, atol=1e-7)
    np.testing.assert_allclose(weights.numpy()[1, 0], [1 / 3] * 3 + [0], atol=1e-7)
    per_query = d2l.masked_softmax(torch.zeros(1, 2, 3), torch.tensor([[1, 3]]))
    np.testing.assert_allclose(per_query.numpy()[0], [[1, 0, 0], [1 / 3] * 3], atol=1e-7)


def test_multi_head_attention_is_pytorchs_given_the_same_weights():
    """The book's MultiHeadAttention without bias is nn.MultiheadAttention(bias=False); a
    valid length masks the same keys as a key padding mask."""
    real = torch_or_skip()
    torch.manual_seed(0)
    mha = d2l.MultiHeadAttention(num_hiddens=8, num_heads=2, dropout=0)
    mha.eval()
    rng = np.random.default_rng(0)
    q, kv = rng.standard_normal((2, 3, 8), np.float32), rng.standard_normal((2, 5, 8),
                                                                          np.float32)
    ours = mha(torch.tensor(q), torch.tensor(kv), torch.tensor(kv), torch.tensor([2, 5]))
    theirs = real.nn.MultiheadAttention(8, 2, bias=False, batch_first=True)
    with real.no_grad():
        theirs.in_proj_weight.copy_(real.tensor(np.concatenate(
            [mha.W_q.weight.numpy(), mha.W_k.weight.numpy(), mha.W_v.weight.numpy()])))
        theirs.out_proj.weight.copy_(real.tensor(mha.W_o.weight.numpy()))
    padding = real.tensor([[False, False, True, True, True], [False] * 5])
    expected, _ = theirs(real.tensor(q), real.tensor(kv), real.tensor(kv),
                         key_padding_mask=padding)
    np.testing.assert_allclose(ours.detach().numpy(), expected.detach().numpy(), atol=1e-5)
    weights = mha.attention.attention_weights.numpy()
    assert weights.shape == (4, 3, 5) and np.abs(weights[:2, :, 2:]).max() < 1e-6


def test_additive_and_dot_product_attention_sum_the_values_by_their_weights():
    torch.manual_seed(0)
    queries, keys = torch.normal(0, 1, (2, 1, 20)), torch.ones((2, 10, 2))
    values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
    valid_lens = torch.tensor([2, 6])
    attention = d2l.AdditiveAttention(num_hiddens=8, dropout=0.1)
    attention.eval()
    out = attention(queries, keys, values, valid_lens)
    d2l.check_shape(out, (2, 1, 4))
    # all keys are equal, so the weights are uniform over the valid ones
    np.testing.assert_allclose(out.detach().numpy()[:, 0], [[2, 3, 4, 5], [10, 11, 12, 13]],
                               rtol=1e-5)
    dot = d2l.DotProductAttention(dropout=0.5)
    dot.eval()
    out = dot(torch.normal(0, 1, (2, 1, 2)), keys, values, valid_lens)
    np.testing.assert_allclose(out.detach().numpy()[:, 0], [[2, 3, 4, 5], [10, 11, 12, 13]],
                               rtol=1e-5)


def test_positional_encoding_and_the_transformer_encoder():
    encoding = d2l.PositionalEncoding(num_hiddens=4, dropout=0)
    P = encoding.P.numpy()[0]
    i = np.arange(1000)[:, None] / 10000 ** (np.arange(0, 4, 2) / 4)
    np.testing.assert_allclose(P[:, 0::2], np.sin(i), atol=1e-5)
    np.testing.assert_allclose(P[:, 1::2], np.cos(i), atol=1e-5)
    encoder = d2l.TransformerEncoder(200, 24, 48, 8, 2, 0.5)
    encoder.eval()
    out = encoder(torch.ones((2, 100), dtype=torch.long), torch.tensor([3, 2]))
    d2l.check_shape(out, (2, 100, 24))
    assert len(encoder.attention_weights) == 2


def test_init_seq2seq_gives_every_gru_weight_matrix_xavier_values():
    torch.manual_seed(0)
    encoder = d2l.Seq2SeqEncoder(vocab_size=10, embed_size=8, num_hiddens=16, num_layers=2)
    outputs, state = encoder(torch.zeros((4, 9), dtype=torch.long))
    d2l.check_shape(outputs, (9, 4, 16))
    d2l.check_shape(state, (2, 4, 16))
    gru = encoder.rnn.rnn
    bound = math.sqrt(6 / (8 + 48))                  # weight_ih_l0 is (3·16, 8)
    weight = gru._parameters["weight_ih_l0"].numpy()
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.9 * bound
    assert gru._flat_weights_names[:2] == ["weight_ih_l0", "weight_hh_l0"]


def test_time_machine_reads_the_books_text_file(tmp_path):
    write_time_machine(tmp_path, n_words=200)
    data = d2l.TimeMachine(batch_size=2, num_steps=5, num_train=10, num_val=5,
                           root=str(tmp_path))
    assert data.vocab.idx_to_token[:2] == [" ", "<unk>"] and len(data.vocab) <= 28
    X, Y = next(iter(data.train_dataloader()))
    d2l.check_shape(X, (2, 5))
    text = "".join(data.vocab.to_tokens(data.X[0].tolist()))
    assert text == "the t" and data.Y[0].tolist() == data.X[1].tolist()


def test_mt_fra_eng_reads_the_pairs_unpacked_or_from_the_zip(tmp_path):
    write_fra_eng(tmp_path)
    data = d2l.MTFraEng(batch_size=4, root=str(tmp_path))
    src, tgt, src_valid_len, label = data.arrays
    assert data.src_vocab.to_tokens(src[0].tolist())[:3] == ["go", ".", "<eos>"]
    assert tgt[0, 0].item() == data.tgt_vocab["<bos>"] and src_valid_len[0].item() == 3
    zipped = tmp_path / "zipped"
    zipped.mkdir()
    with zipfile.ZipFile(zipped / "fra-eng.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.write(tmp_path / "fra-eng" / "fra.txt", "fra-eng/fra.txt")
    same = d2l.MTFraEng(batch_size=4, root=str(zipped))
    assert same.arrays[0].tolist() == src.tolist()


@pytest.mark.parametrize("make, path", [
    (lambda root: d2l.TimeMachine(2, 5, root=root), "timemachine.txt"),
    (lambda root: d2l.MTFraEng(2, root=root), "fra-eng/fra.txt"),
    (lambda root: d2l.get_data_ch11(10, root=root), "airfoil_self_noise.dat"),
])
def test_a_missing_data_file_names_the_exact_path(tmp_path, make, path):
    with pytest.raises(FileNotFoundError) as error:
        make(str(tmp_path))
    message = str(error.value)
    assert str(tmp_path / path) in message and "downloads nothing" in message
    assert d2l.DATA_URL in message


def test_download_finds_the_books_file_and_fetches_nothing(tmp_path):
    (tmp_path / "airfoil_self_noise.dat").write_text("1\t2\n")
    assert d2l.download("airfoil", str(tmp_path)) == str(tmp_path / "airfoil_self_noise.dat")
    with pytest.raises(KeyError, match="DATA_HUB"):
        d2l.download("no such data", str(tmp_path))


def test_the_books_own_mt_fra_eng_download_finds_the_zip_or_the_unpacked_folder(tmp_path):
    """The book's section writes d2l.extract(d2l.download(DATA_URL + 'fra-eng.zip', root))."""
    url = d2l.DATA_URL + "fra-eng.zip"
    with pytest.raises(FileNotFoundError, match="fra-eng.zip does not exist.*unpacks into"):
        d2l.download(url, str(tmp_path))
    write_fra_eng(tmp_path)
    folder = d2l.download(url, str(tmp_path))
    assert folder == str(tmp_path / "fra-eng")
    d2l.extract(folder)                                          # unpacked already: nothing
    zipped = tmp_path / "zipped"
    zipped.mkdir()
    with zipfile.ZipFile(zipped / "fra-eng.zip", "w") as z:
        z.write(tmp_path / "fra-eng" / "fra.txt", "fra-eng/fra.txt")
    d2l.extract(d2l.download(url, str(zipped)))
    assert (zipped / "fra-eng" / "fra.txt").read_text() == (tmp_path / "fra-eng" /
                                                           "fra.txt").read_text()


def test_extract_refuses_a_member_outside_its_folder(tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("../outside.txt", "x")
    with pytest.raises(ValueError, match="outside"):
        d2l.extract(str(archive), str(tmp_path / "into"))
    assert not (tmp_path / "outside.txt").exists()


def test_archives_are_read_only_up_to_what_their_size_can_hold(tmp_path, monkeypatch):
    """Deflate shrinks at most 1032:1; with the bound lowered to 10:1 a highly compressible
    fra.txt (about 1000:1) shows both readers stop at it, before unpacking."""
    from dagrad.d2l import files, seq2seq
    with zipfile.ZipFile(tmp_path / "fra-eng.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("fra-eng/fra.txt", "go .\tva !\n" * 100_000)
    monkeypatch.setattr(files, "MAX_DEFLATE_RATIO", 10)
    monkeypatch.setattr(seq2seq, "MAX_DEFLATE_RATIO", 10)
    with pytest.raises(ValueError, match="more than the zip can hold"):
        d2l.MTFraEng(2, root=str(tmp_path))
    with pytest.raises(ValueError, match="more than a zip file of .* bytes can hold"):
        d2l.extract(str(tmp_path / "fra-eng.zip"))
    assert not (tmp_path / "fra-eng").exists()


def test_lenet_and_the_residual_blocks_shapes():
    X = torch.randn(2, 1, 28, 28)
    lenet = d2l.LeNet()
    d2l.check_shape(lenet(X), (2, 10))
    d2l.check_shape(d2l.Residual(3)(torch.randn(4, 3, 6, 6)), (4, 3, 6, 6))
    d2l.check_shape(d2l.Residual(6, use_1x1conv=True, strides=2)(torch.randn(4, 3, 6, 6)),
                    (4, 6, 3, 3))
    d2l.check_shape(d2l.ResNeXtBlock(32, 16, 1)(torch.randn(2, 32, 8, 8)), (2, 32, 8, 8))
    assert isinstance(lenet, nn.Module) and d2l.nn_Module is nn.Module
