"""WikiText-2 for BERT pretraining (the book's chapter 15): paragraphs of the training split,
next-sentence pairs, masked tokens, padded into the seven arrays the pretraining loop reads.
The random choices use Python's ``random``, as the book's do (``random.seed`` repeats them)."""
import os
import random

from dagrad import torch

from .bert import get_tokens_and_segments
from .files import DATA_HUB, missing, open_data, present, unpacked_member
from .linear import get_dataloader_workers
from .rnn import Vocab, tokenize

DATA_HUB["wikitext-2"] = ("https://s3.amazonaws.com/research.metamind.io/wikitext/"
                          "wikitext-2-v1.zip", "3c914d17d80b1459be871a5039ac23e752a53cbe")
WIKI_TRAIN = "wiki.train.tokens"


def _read_wiki(data_dir):
    """The paragraphs of ``data_dir/wiki.train.tokens`` in a random order: each line with at
    least two sentences (split at " . "), lower-cased, as a list of sentence strings."""
    file_name = os.path.join(data_dir, WIKI_TRAIN)
    if not present(file_name):
        raise missing("_read_wiki", file_name, "inside " + DATA_HUB["wikitext-2"][0],
                      "give the folder that holds it")
    with open_data("_read_wiki", file_name) as f:
        lines = f.readlines()
    paragraphs = [line.strip().lower().split(" . ")
                  for line in lines if len(line.split(" . ")) >= 2]
    random.shuffle(paragraphs)
    return paragraphs


def _get_next_sentence(sentence, next_sentence, paragraphs):
    """(sentence, next_sentence, True) half of the time; otherwise the second sentence is
    replaced by a random sentence of a random paragraph and the label is False."""
    if random.random() < 0.5:
        is_next = True
    else:
        next_sentence = random.choice(random.choice(paragraphs))
        is_next = False
    return sentence, next_sentence, is_next


def _get_nsp_data_from_paragraph(paragraph, paragraphs, vocab, max_len):
    """(tokens, segments, is_next) for each pair of consecutive sentences of ``paragraph``
    (tokenised) whose BERT input ("<cls>" A "<sep>" B "<sep>") fits in ``max_len``."""
    nsp_data_from_paragraph = []
    for i in range(len(paragraph) - 1):
        tokens_a, tokens_b, is_next = _get_next_sentence(paragraph[i], paragraph[i + 1],
                                                         paragraphs)
        if len(tokens_a) + len(tokens_b) + 3 > max_len:
            continue
        tokens, segments = get_tokens_and_segments(tokens_a, tokens_b)
        nsp_data_from_paragraph.append((tokens, segments, is_next))
    return nsp_data_from_paragraph


def _replace_mlm_tokens(tokens, candidate_pred_positions, num_mlm_preds, vocab):
    """A copy of ``tokens`` with ``num_mlm_preds`` of the candidate positions (in a random
    order) replaced: by "<mask>" 80% of the time, kept 10%, a random vocabulary token 10%;
    and the [(position, original token)] to predict."""
    mlm_input_tokens = list(tokens)
    pred_positions_and_labels = []
    random.shuffle(candidate_pred_positions)
    for mlm_pred_position in candidate_pred_positions:
        if len(pred_positions_and_labels) >= num_mlm_preds:
            break
        if random.random() < 0.8:
            masked_token = "<mask>"
        elif random.random() < 0.5:
            masked_token = tokens[mlm_pred_position]
        else:
            masked_token = random.choice(vocab.idx_to_token)
        mlm_input_tokens[mlm_pred_position] = masked_token
        pred_positions_and_labels.append((mlm_pred_position, tokens[mlm_pred_position]))
    return mlm_input_tokens, pred_positions_and_labels


def _get_mlm_data_from_tokens(tokens, vocab):
    """(input token ids with max(1, round(0.15 · len)) tokens replaced, the replaced positions
    in increasing order, the ids of the original tokens there); "<cls>" and "<sep>" are never
    chosen."""
    candidate_pred_positions = [i for i, token in enumerate(tokens)
                                if token not in ("<cls>", "<sep>")]
    num_mlm_preds = max(1, round(len(tokens) * 0.15))
    mlm_input_tokens, pred_positions_and_labels = _replace_mlm_tokens(
        tokens, candidate_pred_positions, num_mlm_preds, vocab)
    pred_positions_and_labels = sorted(pred_positions_and_labels, key=lambda x: x[0])
    pred_positions = [v[0] for v in pred_positions_and_labels]
    mlm_pred_labels = [v[1] for v in pred_positions_and_labels]
    return vocab[mlm_input_tokens], pred_positions, vocab[mlm_pred_labels]


def _pad_bert_inputs(examples, max_len, vocab):
    """Seven lists, one tensor per example: token ids padded with "<pad>" to ``max_len``
    (int64), segments padded with 0, the valid length (float32, the pads excluded), the
    prediction positions, their weights (1, then 0 for padded slots) and the labels, each padded
    to round(0.15 · max_len) slots, and the NSP label (int64)."""
    max_num_mlm_preds = round(max_len * 0.15)
    all_token_ids, all_segments, valid_lens = [], [], []
    all_pred_positions, all_mlm_weights, all_mlm_labels, nsp_labels = [], [], [], []
    for token_ids, pred_positions, mlm_pred_label_ids, segments, is_next in examples:
        pad_preds = max_num_mlm_preds - len(pred_positions)
        all_token_ids.append(torch.tensor(
            token_ids + [vocab["<pad>"]] * (max_len - len(token_ids)), dtype=torch.long))
        all_segments.append(torch.tensor(segments + [0] * (max_len - len(segments)),
                                         dtype=torch.long))
        valid_lens.append(torch.tensor(len(token_ids), dtype=torch.float32))
        all_pred_positions.append(torch.tensor(pred_positions + [0] * pad_preds,
                                               dtype=torch.long))
        all_mlm_weights.append(torch.tensor([1.0] * len(mlm_pred_label_ids) + [0.0] * pad_preds,
                                            dtype=torch.float32))
        all_mlm_labels.append(torch.tensor(
            mlm_pred_label_ids + [0] * (max_num_mlm_preds - len(mlm_pred_label_ids)),
            dtype=torch.long))
        nsp_labels.append(torch.tensor(is_next, dtype=torch.long))
    return (all_token_ids, all_segments, valid_lens, all_pred_positions, all_mlm_weights,
            all_mlm_labels, nsp_labels)


class _WikiTextDataset(torch.utils.data.Dataset):
    """BERT pretraining examples from ``paragraphs`` (lists of sentence strings): the words of
    every sentence make the vocabulary (min_freq 5, plus "<pad>", "<mask>", "<cls>", "<sep>");
    an item is (token ids, segments, valid length, prediction positions, their weights, MLM
    labels, NSP label)."""

    def __init__(self, paragraphs, max_len):
        paragraphs = [tokenize(paragraph, token="word") for paragraph in paragraphs]
        sentences = [sentence for paragraph in paragraphs for sentence in paragraph]
        self.vocab = Vocab(sentences, min_freq=5,
                           reserved_tokens=["<pad>", "<mask>", "<cls>", "<sep>"])
        examples = []
        for paragraph in paragraphs:
            examples.extend(_get_nsp_data_from_paragraph(paragraph, paragraphs, self.vocab,
                                                         max_len))
        examples = [(_get_mlm_data_from_tokens(tokens, self.vocab) + (segments, is_next))
                    for tokens, segments, is_next in examples]
        (self.all_token_ids, self.all_segments, self.valid_lens, self.all_pred_positions,
         self.all_mlm_weights, self.all_mlm_labels,
         self.nsp_labels) = _pad_bert_inputs(examples, max_len, self.vocab)

    def __getitem__(self, idx):
        return (self.all_token_ids[idx], self.all_segments[idx], self.valid_lens[idx],
                self.all_pred_positions[idx], self.all_mlm_weights[idx],
                self.all_mlm_labels[idx], self.nsp_labels[idx])

    def __len__(self):
        return len(self.all_token_ids)


def load_data_wiki(batch_size, max_len, root="../data"):
    """(a shuffled loader of WikiText-2's BERT pretraining examples, their vocabulary), read
    from ``root/wikitext-2/wiki.train.tokens`` (or ``root/wikitext-2-v1.zip``, unpacked there).
    dagrad downloads nothing: without the file this raises FileNotFoundError saying where to
    put it."""
    data_dir = os.path.dirname(unpacked_member("load_data_wiki", root, "wikitext-2", WIKI_TRAIN,
                                               folder="wikitext-2"))
    paragraphs = _read_wiki(data_dir)
    train_set = _WikiTextDataset(paragraphs, max_len)
    train_iter = torch.utils.data.DataLoader(train_set, batch_size, shuffle=True,
                                             num_workers=get_dataloader_workers())
    return train_iter, train_set.vocab
