"""Sequence to sequence (the book's chapter 10): English-French pairs, the encoder-decoder
interfaces, the GRU encoder, ``Seq2Seq``, BLEU and the sequence masks."""
import collections
import math
import os
import zipfile

from dagrad import torch
from dagrad.torch import nn

from .base import DataModule, grad_clipping
from dagrad.nn.formats.guard import file_size

from .files import DATA_HUB, MAX_DEFLATE_RATIO, missing, open_data, present, read_data
from .linear import Classifier, load_array
from .plotting import Animator
from .rnn import GRU, Vocab
from .utils import Accumulator, Timer


def read_fra_eng(root):
    """The text of ``root/fra-eng/fra.txt``, or of that member of ``root/fra-eng.zip``: one
    "English<TAB>French" pair a line (UTF-8)."""
    path = os.path.join(root, "fra-eng", "fra.txt")
    if present(path):
        return read_data("MTFraEng", path)
    archive = os.path.join(root, "fra-eng.zip")
    if not present(archive):
        raise missing("MTFraEng", path, "inside " + DATA_HUB["fra-eng"][0],
                      f"leave the zip itself at {os.path.abspath(archive)}, or pass "
                      f"root=<the folder holding fra-eng/>")
    with open_data("MTFraEng", archive, binary=True) as f, zipfile.ZipFile(f) as z:
        info = z.getinfo("fra-eng/fra.txt")
        if info.file_size > MAX_DEFLATE_RATIO * file_size(f):
            raise ValueError(f"MTFraEng: {archive} claims {info.file_size} bytes for "
                             f"fra-eng/fra.txt, more than the zip can hold")
        return z.read(info).decode("utf-8")


def preprocess_nmt(text):
    """Lower case, non-breaking spaces as spaces, a space before , . ! ? that lack one."""
    text = text.replace("\u202f", " ").replace("\xa0", " ").lower()
    out = [" " + char if i > 0 and char in ",.!?" and text[i - 1] != " " else char
           for i, char in enumerate(text)]
    return "".join(out)


class MTFraEng(DataModule):
    """English -> French translation pairs from ``root/fra-eng/fra.txt``: arrays (source,
    decoder input, source valid length, target), each sentence cut or padded to ``num_steps``
    tokens ending in "<eos>"; targets start with "<bos>". Words seen once become "<unk>"."""

    def _download(self):
        return read_fra_eng(self.root)

    def _preprocess(self, text):
        return preprocess_nmt(text)

    def _tokenize(self, text, max_examples=None):
        src, tgt = [], []
        for i, line in enumerate(text.split("\n")):
            if max_examples and i > max_examples:
                break
            parts = line.split("\t")
            if len(parts) == 2:
                src.append([t for t in f"{parts[0]} <eos>".split(" ") if t])
                tgt.append([t for t in f"{parts[1]} <eos>".split(" ") if t])
        return src, tgt

    def __init__(self, batch_size, num_steps=9, num_train=512, num_val=128, root="../data"):
        super().__init__(root=root)
        self.save_hyperparameters(ignore=["root"])
        self.arrays, self.src_vocab, self.tgt_vocab = self._build_arrays(self._download())

    def _build_arrays(self, raw_text, src_vocab=None, tgt_vocab=None):
        def _build_array(sentences, vocab, is_tgt=False):
            def pad_or_trim(seq, t):
                return seq[:t] if len(seq) > t else seq + ["<pad>"] * (t - len(seq))
            sentences = [pad_or_trim(s, self.num_steps) for s in sentences]
            if is_tgt:
                sentences = [["<bos>"] + s for s in sentences]
            if vocab is None:
                vocab = Vocab(sentences, min_freq=2)
            array = torch.tensor([vocab[s] for s in sentences])
            valid_len = (array != vocab["<pad>"]).type(torch.int32).sum(1)
            return array, vocab, valid_len
        src, tgt = self._tokenize(self._preprocess(raw_text), self.num_train + self.num_val)
        src_array, src_vocab, src_valid_len = _build_array(src, src_vocab)
        tgt_array, tgt_vocab, _ = _build_array(tgt, tgt_vocab, True)
        return ((src_array, tgt_array[:, :-1], src_valid_len, tgt_array[:, 1:]),
                src_vocab, tgt_vocab)

    def get_dataloader(self, train):
        idx = slice(0, self.num_train) if train else slice(self.num_train, None)
        return self.get_tensorloader(self.arrays, train, idx)

    def build(self, src_sentences, tgt_sentences):
        """The arrays of new sentence pairs, in this data set's vocabularies."""
        raw_text = "\n".join([src + "\t" + tgt for src, tgt in zip(src_sentences,
                                                                    tgt_sentences)])
        arrays, _, _ = self._build_arrays(raw_text, self.src_vocab, self.tgt_vocab)
        return arrays


class Encoder(nn.Module):
    """The encoder interface: ``forward(X, *args)``."""

    def forward(self, X, *args):
        raise NotImplementedError(f"{type(self).__name__} must define forward(X, *args)")


class Decoder(nn.Module):
    """The decoder interface: ``init_state(enc_all_outputs, *args)``, ``forward(X, state)``
    returning (output, new state)."""

    def init_state(self, enc_all_outputs, *args):
        raise NotImplementedError(f"{type(self).__name__} must define init_state")

    def forward(self, X, state):
        raise NotImplementedError(f"{type(self).__name__} must define forward(X, state)")


class EncoderDecoder(Classifier):
    """decoder(dec_X, decoder.init_state(encoder(enc_X, *args), *args))[0]."""

    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, enc_X, dec_X, *args):
        enc_all_outputs = self.encoder(enc_X, *args)
        dec_state = self.decoder.init_state(enc_all_outputs, *args)
        return self.decoder(dec_X, dec_state)[0]

    def predict_step(self, batch, device, num_steps, save_attention_weights=False):
        """Greedy decoding of ``num_steps`` tokens from the first target token of each row;
        returns (tokens (batch, num_steps), the attention weights of each step if saved)."""
        batch = [a.to(device) for a in batch]
        src, tgt, src_valid_len, _ = batch
        enc_all_outputs = self.encoder(src, src_valid_len)
        dec_state = self.decoder.init_state(enc_all_outputs, src_valid_len)
        outputs, attention_weights = [tgt[:, 0].unsqueeze(1)], []
        for _ in range(num_steps):
            Y, dec_state = self.decoder(outputs[-1], dec_state)
            outputs.append(Y.argmax(2))
            if save_attention_weights:
                attention_weights.append(self.decoder.attention_weights)
        return torch.cat(outputs[1:], 1), attention_weights


def init_seq2seq(module):
    """Xavier-uniform weights for Linear layers and for every weight matrix of a GRU."""
    if type(module) is nn.Linear:
        nn.init.xavier_uniform_(module.weight)
    if type(module) is nn.GRU:
        for param in module._flat_weights_names:
            if "weight" in param:
                nn.init.xavier_uniform_(module._parameters[param])


class Seq2SeqEncoder(Encoder):
    """Embedding then a multi-layer GRU. X (batch, num_steps) -> (outputs (num_steps, batch,
    num_hiddens), state (num_layers, batch, num_hiddens))."""

    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = GRU(embed_size, num_hiddens, num_layers, dropout)
        self.apply(init_seq2seq)

    def forward(self, X, *args):
        embs = self.embedding(X.t().type(torch.int64))
        outputs, state = self.rnn(embs)
        return outputs, state


class Seq2Seq(EncoderDecoder):
    """The encoder-decoder trained with Adam. As in the book's library, the loss is the
    Classifier's over every position; the book's section adds the one that skips the padding
    ``tgt_pad`` with ``add_to_class``."""

    def __init__(self, encoder, decoder, tgt_pad, lr):
        super().__init__(encoder, decoder)
        self.save_hyperparameters()

    def validation_step(self, batch):
        Y_hat = self(*batch[:-1])
        self.plot("loss", self.loss(Y_hat, batch[-1]), train=False)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


def bleu(pred_seq, label_seq, k):
    """BLEU = exp(min(0, 1 - len_label / len_pred)) · Π_{n≤k} p_n^(1/2ⁿ), p_n the fraction of
    the prediction's n-grams found in the label (each label n-gram matched once)."""
    pred_tokens, label_tokens = pred_seq.split(" "), label_seq.split(" ")
    len_pred, len_label = len(pred_tokens), len(label_tokens)
    score = math.exp(min(0, 1 - len_label / len_pred))
    for n in range(1, min(k, len_pred) + 1):
        num_matches, label_subs = 0, collections.defaultdict(int)
        for i in range(len_label - n + 1):
            label_subs[" ".join(label_tokens[i: i + n])] += 1
        for i in range(len_pred - n + 1):
            if label_subs[" ".join(pred_tokens[i: i + n])] > 0:
                num_matches += 1
                label_subs[" ".join(pred_tokens[i: i + n])] -= 1
        score *= math.pow(num_matches / (len_pred - n + 1), math.pow(0.5, n))
    return score


def sequence_mask(X, valid_len, value=0):
    """Set X[i, j] = value for j ≥ valid_len[i], in place; returns X. X (batch, maxlen, ...)."""
    maxlen = X.size(1)
    mask = torch.arange(maxlen, dtype=torch.float32)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


class MaskedSoftmaxCELoss(nn.CrossEntropyLoss):
    """Cross-entropy per sequence, averaged over its steps with the padding weighted 0:
    pred (batch, num_steps, vocab), label (batch, num_steps), valid_len (batch,)."""

    def forward(self, pred, label, valid_len):
        weights = sequence_mask(torch.ones_like(label), valid_len)
        self.reduction = "none"
        unweighted_loss = super().forward(pred.permute(0, 2, 1), label)
        return (unweighted_loss * weights).mean(dim=1)


# ------------------------------------------------- the older chapters' translation helpers
def read_data_nmt(root="../data"):
    """The raw text of the English-French pairs."""
    return read_fra_eng(root)


def tokenize_nmt(text, num_examples=None):
    """(source, target): the words of each pair's two sides."""
    source, target = [], []
    for i, line in enumerate(text.split("\n")):
        if num_examples and i > num_examples:
            break
        parts = line.split("\t")
        if len(parts) == 2:
            source.append(parts[0].split(" "))
            target.append(parts[1].split(" "))
    return source, target


def truncate_pad(line, num_steps, padding_token):
    """``line`` cut or padded with ``padding_token`` to ``num_steps`` items."""
    if len(line) > num_steps:
        return line[:num_steps]
    return line + [padding_token] * (num_steps - len(line))


def build_array_nmt(lines, vocab, num_steps):
    """(indices (n, num_steps) with "<eos>" appended, valid lengths (n,))."""
    lines = [vocab[line] + [vocab["<eos>"]] for line in lines]
    array = torch.tensor([truncate_pad(line, num_steps, vocab["<pad>"]) for line in lines])
    valid_len = (array != vocab["<pad>"]).type(torch.int32).sum(1)
    return array, valid_len


def load_data_nmt(batch_size, num_steps, num_examples=600, root="../data"):
    """(loader of (src, src_valid_len, tgt, tgt_valid_len), src_vocab, tgt_vocab)."""
    text = preprocess_nmt(read_data_nmt(root))
    source, target = tokenize_nmt(text, num_examples)
    reserved = ["<pad>", "<bos>", "<eos>"]
    src_vocab = Vocab(source, min_freq=2, reserved_tokens=reserved)
    tgt_vocab = Vocab(target, min_freq=2, reserved_tokens=reserved)
    src_array, src_valid_len = build_array_nmt(source, src_vocab, num_steps)
    tgt_array, tgt_valid_len = build_array_nmt(target, tgt_vocab, num_steps)
    data_iter = load_array((src_array, src_valid_len, tgt_array, tgt_valid_len), batch_size)
    return data_iter, src_vocab, tgt_vocab


def train_seq2seq(net, data_iter, lr, num_epochs, tgt_vocab, device):
    """Train the encoder-decoder ``net`` with Adam on batches (X, X_valid_len, Y,
    Y_valid_len) of ``load_data_nmt``: Xavier weights (``init_seq2seq``), teacher forcing (the
    decoder reads "<bos>" then Y[:, :-1]), the sum of ``MaskedSoftmaxCELoss`` over the batch,
    gradients clipped to norm 1. Every 10 epochs the loss per token is plotted; the last is
    printed. ``net(X, dec_X, X_valid_len)`` may return the decoder's (output, state), as the
    book's older ``EncoderDecoder`` did, or the output alone, as ``EncoderDecoder`` does."""
    net.apply(init_seq2seq)
    net.to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    loss = MaskedSoftmaxCELoss()
    net.train()
    animator = Animator(xlabel="epoch", ylabel="loss", xlim=[10, num_epochs])
    for epoch in range(num_epochs):
        timer = Timer()
        metric = Accumulator(2)          # the sum of the losses, the number of tokens
        for batch in data_iter:
            optimizer.zero_grad()
            X, X_valid_len, Y, Y_valid_len = [x.to(device) for x in batch]
            bos = torch.tensor([tgt_vocab["<bos>"]] * Y.shape[0], device=device).reshape(-1, 1)
            dec_input = torch.cat([bos, Y[:, :-1]], 1)
            Y_hat = net(X, dec_input, X_valid_len)
            if isinstance(Y_hat, (tuple, list)):
                Y_hat = Y_hat[0]
            l = loss(Y_hat, Y, Y_valid_len)  # noqa: E741
            l.sum().backward()
            grad_clipping(net, 1)
            num_tokens = Y_valid_len.sum()
            optimizer.step()
            with torch.no_grad():
                metric.add(l.sum(), num_tokens)
        if (epoch + 1) % 10 == 0:
            animator.add(epoch + 1, (metric[0] / metric[1],))
    print(f"loss {metric[0] / metric[1]:.3f}, {metric[1] / timer.stop():.1f} "
          f"tokens/sec on {str(device)}")


def predict_seq2seq(net, src_sentence, src_vocab, tgt_vocab, num_steps, device,
                    save_attention_weights=False):
    """Greedy translation of ``src_sentence`` (words separated by spaces; lower-cased and
    ended by "<eos>", padded to ``num_steps``): from "<bos>", the decoder's most likely token
    is fed back until it predicts "<eos>" or ``num_steps`` tokens are out. Returns (the
    translation's words joined by spaces, the decoder's attention weights at each step if
    ``save_attention_weights``). ``net`` is put in evaluation mode. A translation of none or
    one word is returned as such (the book's version stops there with a TypeError)."""
    net.eval()
    src_tokens = src_vocab[src_sentence.lower().split(" ")] + [src_vocab["<eos>"]]
    enc_valid_len = torch.tensor([len(src_tokens)], device=device)
    src_tokens = truncate_pad(src_tokens, num_steps, src_vocab["<pad>"])
    enc_X = torch.unsqueeze(torch.tensor(src_tokens, dtype=torch.long, device=device), dim=0)
    enc_outputs = net.encoder(enc_X, enc_valid_len)
    dec_state = net.decoder.init_state(enc_outputs, enc_valid_len)
    dec_X = torch.unsqueeze(torch.tensor([tgt_vocab["<bos>"]], dtype=torch.long,
                                         device=device), dim=0)
    output_seq, attention_weight_seq = [], []
    for _ in range(num_steps):
        Y, dec_state = net.decoder(dec_X, dec_state)
        dec_X = Y.argmax(dim=2)
        pred = dec_X.squeeze(dim=0).type(torch.int32).item()
        if save_attention_weights:
            attention_weight_seq.append(net.decoder.attention_weights)
        if pred == tgt_vocab["<eos>"]:
            break
        output_seq.append(pred)
    # token by token: Vocab.to_tokens of a one-token list would index with the list itself
    words = [tgt_vocab.idx_to_token[i] for i in output_seq]
    return " ".join(words), attention_weight_seq
