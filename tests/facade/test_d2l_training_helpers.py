"""The book's older training helpers and the multi-GPU chapter's pieces in dagrad.d2l:
``train_ch6`` trains LeNet on the bundled digits, ``train_seq2seq``/``predict_seq2seq``
translate the generated English-French pairs, ``resnet18`` is the book's network (against the
same network written with PyTorch's modules, given the same weights), and ``split_batch``
shares a batch out as ``nn.parallel.scatter`` does."""
import numpy as np
import pytest

from dagrad import d2l, torch
from dagrad.torch import nn
from tests.facade.book_data import PAIRS, write_fra_eng
from tests.helpers import torch_or_skip


@pytest.fixture(autouse=True)
def _agg():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")


def test_train_ch6_trains_lenet_on_the_bundled_digits(capsys):
    """The chapter's LeNet with ReLU in place of the sigmoid (the section's exercise): the
    sigmoid version needs hundreds more steps than 1437 digits give before it leaves
    chance."""
    torch.manual_seed(0)
    net = nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.ReLU(), nn.AvgPool2d(2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.ReLU(), nn.AvgPool2d(2, stride=2), nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10))
    data = d2l.FashionMNIST(batch_size=32, resize=28, stand_in="digits")
    train_iter, test_iter = data.train_dataloader(), data.val_dataloader()
    d2l.train_ch6(net, train_iter, test_iter, 2, 0.1, d2l.try_gpu())
    printed = capsys.readouterr().out
    assert printed.startswith("training on cpu") and "examples/sec on cpu" in printed
    test_acc = float(printed.split("test acc ")[1].split()[0])
    assert test_acc > 0.6                               # chance is 0.1
    assert d2l.evaluate_accuracy_gpu(net, test_iter) == pytest.approx(test_acc, abs=5e-4)
    assert not net.training                             # evaluated last, as in the book


class Seq2SeqDecoder(d2l.Decoder):
    """The book's older GRU decoder: the encoder's last state is its first state and, as the
    context, part of every step's input."""

    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers)
        self.dense = nn.Linear(num_hiddens, vocab_size)

    def init_state(self, enc_outputs, *args):
        return enc_outputs[1]

    def forward(self, X, state):
        X = self.embedding(X).permute(1, 0, 2)
        context = state[-1].repeat(X.shape[0], 1, 1)
        output, state = self.rnn(torch.cat((X, context), 2), state)
        return self.dense(output).permute(1, 0, 2), state


class OlderEncoderDecoder(d2l.EncoderDecoder):
    """The older books' EncoderDecoder, whose forward returns the decoder's (output, state)."""

    def forward(self, enc_X, dec_X, *args):
        return self.decoder(dec_X, self.decoder.init_state(self.encoder(enc_X, *args), *args))


def _translator(tmp_path, kind=d2l.EncoderDecoder):
    write_fra_eng(tmp_path)
    torch.manual_seed(0)
    train_iter, src_vocab, tgt_vocab = d2l.load_data_nmt(64, 8, root=str(tmp_path))
    net = kind(d2l.Seq2SeqEncoder(len(src_vocab), 16, 32, 2),
               Seq2SeqDecoder(len(tgt_vocab), 16, 32, 2))
    return net, train_iter, src_vocab, tgt_vocab


def test_train_seq2seq_then_predict_seq2seq_translates_the_pairs(tmp_path, capsys):
    net, train_iter, src_vocab, tgt_vocab = _translator(tmp_path)
    d2l.train_seq2seq(net, train_iter, 0.01, 120, tgt_vocab, d2l.try_gpu())
    loss = float(capsys.readouterr().out.split()[1].rstrip(","))
    assert loss < 0.1
    exact, sources = 0, dict(PAIRS)                    # one translation per English source
    for en, fr in sources.items():
        en, fr = d2l.preprocess_nmt(en), d2l.preprocess_nmt(fr)
        translation, weights = d2l.predict_seq2seq(net, en, src_vocab, tgt_vocab, 8,
                                                   d2l.try_gpu())
        exact += translation == fr
        assert weights == []
        # the same greedy decoding as EncoderDecoder.predict_step, cut at "<eos>"
        src, src_len = d2l.build_array_nmt([en.split(" ")], src_vocab, 8)
        bos = torch.tensor([[tgt_vocab["<bos>"]]])
        tokens, _ = net.predict_step((src, bos, src_len, bos), d2l.try_gpu(), 8)
        words = tgt_vocab.to_tokens(tokens[0].tolist()) + ["<eos>"]
        assert translation == " ".join(words[:words.index("<eos>")])
    assert exact >= 0.7 * len(sources), exact
    assert not net.training


def test_train_seq2seq_takes_the_older_encoder_decoders_output_pair_too(tmp_path, capsys):
    """The same training on the output alone (EncoderDecoder) and on (output, state)
    (the older books' class) gives the same weights."""
    trained = []
    for kind in (d2l.EncoderDecoder, OlderEncoderDecoder):
        net, train_iter, _, tgt_vocab = _translator(tmp_path, kind)
        d2l.train_seq2seq(net, train_iter, 0.01, 3, tgt_vocab, "cpu")
        trained.append(net.state_dict())
    for key, value in trained[0].items():
        np.testing.assert_array_equal(value.numpy(), trained[1][key].numpy(), err_msg=key)


def test_predict_seq2seq_returns_a_one_word_translation():
    """A decoder that says "salut" then "<eos>": one word (the book's version fails there)."""
    vocab = d2l.Vocab([["salut", "<eos>"]], reserved_tokens=["<pad>", "<bos>", "<eos>"])
    src_vocab = d2l.Vocab([["hi"]], reserved_tokens=["<pad>", "<eos>"])

    class Scripted(d2l.Decoder):
        def init_state(self, enc_outputs, *args):
            return 0

        def forward(self, X, step):
            scores = torch.zeros(1, 1, len(vocab))
            scores[0, 0, vocab["salut" if step == 0 else "<eos>"]] = 1
            return scores, step + 1

    class Nothing(d2l.Encoder):
        def forward(self, X, *args):
            return X

    net = d2l.EncoderDecoder(Nothing(), Scripted())
    assert d2l.predict_seq2seq(net, "hi", src_vocab, vocab, 5, "cpu")[0] == "salut"


def _pytorch_resnet18(real, num_classes, in_channels):
    """The book's resnet18 with PyTorch's modules and the same layer names."""
    nn_ = real.nn

    class Residual(nn_.Module):
        def __init__(self, cin, cout, use_1x1conv=False, strides=1):
            super().__init__()
            self.conv1 = nn_.Conv2d(cin, cout, 3, padding=1, stride=strides)
            self.conv2 = nn_.Conv2d(cout, cout, 3, padding=1)
            self.conv3 = nn_.Conv2d(cin, cout, 1, stride=strides) if use_1x1conv else None
            self.bn1, self.bn2 = nn_.BatchNorm2d(cout), nn_.BatchNorm2d(cout)

        def forward(self, X):
            Y = real.relu(self.bn1(self.conv1(X)))
            Y = self.bn2(self.conv2(Y))
            return real.relu(Y + (self.conv3(X) if self.conv3 is not None else X))

    def stage(cin, cout, first=False):
        return nn_.Sequential(Residual(cin, cout, use_1x1conv=not first,
                                       strides=1 if first else 2), Residual(cout, cout))

    net = nn_.Sequential(nn_.Conv2d(in_channels, 64, 3, stride=1, padding=1),
                         nn_.BatchNorm2d(64), nn_.ReLU())
    for i, (cin, cout) in enumerate([(64, 64), (64, 128), (128, 256), (256, 512)]):
        net.add_module(f"resnet_block{i + 1}", stage(cin, cout, first=i == 0))
    net.add_module("global_avg_pool", nn_.AdaptiveAvgPool2d((1, 1)))
    net.add_module("fc", nn_.Sequential(nn_.Flatten(), nn_.Linear(512, num_classes)))
    return net


def test_resnet18_is_the_books_network_given_the_same_weights():
    real = torch_or_skip()
    torch.manual_seed(0)
    ours = d2l.resnet18(10, in_channels=3)
    X = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    ours(torch.tensor(X))                              # the lazy blocks take their sizes
    theirs = _pytorch_resnet18(real, 10, 3)
    theirs.load_state_dict({k: real.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    assert sum(p.numel() for p in ours.parameters()) == sum(
        p.numel() for p in theirs.parameters()) == 11_176_970
    ours.eval(), theirs.eval()
    np.testing.assert_allclose(ours(torch.tensor(X)).detach().numpy(),
                               theirs(real.tensor(X)).detach().numpy(), atol=1e-4)
    # training mode normalises the last stage over 2 numbers a channel, which magnifies
    # float32 rounding: compare in float64
    ours.train().double(), theirs.train().double()
    out, expected = ours(torch.tensor(X).double()), theirs(real.tensor(X).double())
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), atol=1e-9)
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(ours[0].weight.grad.numpy(), theirs[0].weight.grad.numpy(),
                               atol=1e-9)


def test_split_batch_shares_the_batch_out_over_the_devices():
    X, y = torch.arange(20).reshape(10, 2), torch.arange(10)
    devices = [d2l.try_gpu(i) for i in range(2)]       # the CPU twice, as without GPUs
    X_shares, y_shares = d2l.split_batch(X, y, devices)
    assert [s.tolist() for s in y_shares] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert torch.equal(torch.cat(X_shares), X) and X_shares[1].device == devices[1]
    _, y_shares = d2l.split_batch(X[:5], y[:5], [d2l.cpu()] * 4)   # chunks of ⌈5/4⌉ = 2
    assert [s.tolist() for s in y_shares] == [[0, 1], [2, 3], [4]]
    assert torch.equal(d2l.split_batch(X, y, [d2l.cpu()])[1][0], y)
    with pytest.raises(ValueError, match="X has 10 rows and y 9"):
        d2l.split_batch(X, y[:9], devices)
    with pytest.raises(ValueError, match="no devices.*try_all_gpus"):
        d2l.split_batch(X, y, d2l.try_all_gpus())
