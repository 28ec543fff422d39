"""Sections of the book, written as the book writes them with its library, give PyTorch's
numbers on dagrad: each program runs on dagrad and on PyTorch from the same initial weights
and data (tests/facade/book_programs.py says how), on small files in the book's formats."""
import numpy as np
import pytest

from tests.facade.book_data import (write_airfoil, write_fashion_mnist, write_fra_eng,
                                    write_time_machine)
from tests.facade.book_programs import compare

LINEAR_REGRESSION = """
# §3.4 and §3.5: linear regression from scratch and concise
data = d2l.SyntheticRegressionData(w=torch.tensor([2, -3.4]), b=4.2)
scratch = d2l.LinearRegressionScratch(2, lr=0.03)
scratch.board.display = False
d2l.Trainer(max_epochs=2).fit(scratch, data)

model = d2l.LinearRegression(lr=0.03)
model(data.X[:1])                      # the lazy layer takes its size
share(model)
model.board.display = False
trainer = d2l.Trainer(max_epochs=3)
trainer.fit(model, data)
w, b = model.get_w_b()
result = {"scratch_w": scratch.w, "scratch_b": scratch.b, "w": w, "b": b,
          "val_loss": [p.y for p in model.board.data["val_loss"]],
          "train_loss": [p.y for p in model.board.data["train_loss"]]}
"""

SOFTMAX_REGRESSION = """
# §4.5: softmax regression on Fashion-MNIST, then §7.6's LeNet for one epoch
data = d2l.FashionMNIST(batch_size=32)
model = d2l.SoftmaxRegression(num_outputs=10, lr=0.1)
X, y = next(iter(data.val_dataloader()))
model(X)
share(model)
model.board.display = False
trainer = d2l.Trainer(max_epochs=3)
trainer.fit(model, data)
acc = model.accuracy(model(X), y)

lenet = d2l.LeNet(lr=0.1)
lenet.apply_init([X], d2l.init_cnn)
share(lenet)
lenet.board.display = False
d2l.Trainer(max_epochs=1).fit(lenet, data)
result = {"W": model.net[1].weight, "b": model.net[1].bias, "acc": acc,
          "val_acc": [p.y for p in model.board.data["val_acc"]],
          "lenet_out": lenet.net[-1].weight, "lenet_val": lenet.board.data["val_loss"][-1].y}
"""

RNN_LANGUAGE_MODEL = """
# §9.5 and §9.6: a character RNN language model from scratch and concise
data = d2l.TimeMachine(batch_size=32, num_steps=16, num_train=256, num_val=64)
rnn = d2l.RNNScratch(num_inputs=len(data.vocab), num_hiddens=24)
scratch = d2l.RNNLMScratch(rnn, vocab_size=len(data.vocab), lr=1)
scratch.board.display = False
d2l.Trainer(max_epochs=2, gradient_clip_val=1).fit(scratch, data)

rnn = d2l.RNN(num_inputs=len(data.vocab), num_hiddens=24)
model = d2l.RNNLM(rnn, vocab_size=len(data.vocab), lr=1)
model(data.X[:2])
share(model)
model.board.display = False
trainer = d2l.Trainer(max_epochs=3, gradient_clip_val=1)
trainer.fit(model, data)
result = {"scratch_ppl": [p.y for p in scratch.board.data["val_ppl"]],
          "W_hq": scratch.W_hq, "ppl": [p.y for p in model.board.data["val_ppl"]],
          "W_hh": model.rnn.rnn.weight_hh_l0,
          "prediction": model.predict("it has", 20, data.vocab)}
"""

SEQ2SEQ = """
# §10.7: the GRU encoder-decoder on English-French pairs
class Seq2SeqDecoder(d2l.Decoder):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = d2l.GRU(embed_size+num_hiddens, num_hiddens, num_layers, dropout)
        self.dense = nn.LazyLinear(vocab_size)
        self.apply(d2l.init_seq2seq)

    def init_state(self, enc_all_outputs, *args):
        return enc_all_outputs

    def forward(self, X, state):
        embs = self.embedding(d2l.astype(d2l.transpose(X), d2l.int32))
        enc_output, hidden_state = state
        context = enc_output[-1]
        context = context.repeat(embs.shape[0], 1, 1)
        embs_and_context = d2l.concat((embs, context), -1)
        outputs, hidden_state = self.rnn(embs_and_context, hidden_state)
        outputs = d2l.swapaxes(self.dense(outputs), 0, 1)
        return outputs, [enc_output, hidden_state]

@d2l.add_to_class(d2l.Seq2Seq)
def loss(self, Y_hat, Y):
    l = super(d2l.Seq2Seq, self).loss(Y_hat, Y, averaged=False)
    mask = d2l.astype(d2l.reshape(Y, -1) != self.tgt_pad, d2l.float32)
    return d2l.reduce_sum(l * mask) / d2l.reduce_sum(mask)

data = d2l.MTFraEng(batch_size=16, num_steps=6, num_train=96, num_val=32)
embed_size, num_hiddens, num_layers, dropout = 8, 16, 2, 0
encoder = d2l.Seq2SeqEncoder(len(data.src_vocab), embed_size, num_hiddens, num_layers, dropout)
decoder = Seq2SeqDecoder(len(data.tgt_vocab), embed_size, num_hiddens, num_layers, dropout)
model = d2l.Seq2Seq(encoder, decoder, tgt_pad=data.tgt_vocab['<pad>'], lr=0.005)
batch = next(iter(data.train_dataloader()))
model(*batch[:-1])
share(model)
model.board.display = False
trainer = d2l.Trainer(max_epochs=4, gradient_clip_val=1)
trainer.fit(model, data)

engs = ['go .', 'i lost .', 'he\\'s calm .', 'i\\'m home .']
fras = ['va !', 'j\\'ai perdu .', 'il est calme .', 'je suis chez moi .']
preds, _ = model.predict_step(data.build(engs, fras), d2l.try_gpu(), data.num_steps)
translations = []
for en, fr, p in zip(engs, fras, preds):
    translation = []
    for token in data.tgt_vocab.to_tokens(p):
        if token == '<eos>':
            break
        translation.append(token)
    translations.append(' '.join(translation))
result = {"val_loss": [p.y for p in model.board.data["val_loss"]],
          "dense": model.decoder.dense.weight, "translations": " | ".join(translations),
          "bleu": [d2l.bleu(t, fr, k=2) for t, fr in zip(translations, fras)]}
"""

MINIBATCH_SGD = """
# §12.5: minibatch stochastic gradient descent on the airfoil data
def sgd(params, states, hyperparams):
    for p in params:
        p.data.sub_(hyperparams['lr'] * p.grad)
        p.grad.data.zero_()

def train_sgd(lr, batch_size, num_epochs=2):
    data_iter, feature_dim = d2l.get_data_ch11(batch_size)
    return d2l.train_ch11(sgd, None, {'lr': lr}, data_iter, feature_dim, num_epochs)

gd_res = train_sgd(1, 1500, 10)
mini_res = train_sgd(.05, 10)
data_iter, _ = d2l.get_data_ch11(10)
trainer = torch.optim.SGD
share_concise = d2l.train_concise_ch11(trainer, {'lr': 0.01}, data_iter)
result = {"gd_losses": gd_res[1], "mini_losses": mini_res[1]}
"""


@pytest.fixture
def root(tmp_path, monkeypatch):
    """The book's ../data with small files in its formats, seen from the working folder."""
    data = tmp_path / "data"
    data.mkdir()
    write_fashion_mnist(data, n_train=96, n_val=32)
    write_time_machine(data)
    write_fra_eng(data)
    write_airfoil(data, n=400)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return data


def test_linear_regression_scratch_and_concise(monkeypatch):
    ours, _ = compare(LINEAR_REGRESSION, monkeypatch)
    assert np.abs(ours["w"].numpy() - [[2, -3.4]]).max() < 0.1  # it learned, as in the book


def test_softmax_regression_and_lenet_on_fashion_mnist_files(monkeypatch, root):
    ours, _ = compare(SOFTMAX_REGRESSION, monkeypatch)
    assert ours["acc"].item() > 0.5                  # the generated classes are separable


def test_rnn_language_models_on_the_time_machine(monkeypatch, root):
    ours, _ = compare(RNN_LANGUAGE_MODEL, monkeypatch, rtol=2e-4)
    assert ours["ppl"][-1] < ours["ppl"][0] and ours["prediction"].startswith("it has")


def test_seq2seq_on_english_french_pairs(monkeypatch, root):
    ours, _ = compare(SEQ2SEQ, monkeypatch, rtol=2e-4)
    assert ours["val_loss"][-1] < ours["val_loss"][0]


def test_train_ch11_on_the_airfoil_data(monkeypatch, root):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    ours, _ = compare(MINIBATCH_SGD, monkeypatch)
    assert ours["mini_losses"][-1] < ours["mini_losses"][0]
