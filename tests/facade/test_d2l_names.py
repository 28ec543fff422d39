"""dagrad.d2l has every name the book's library (d2l 1.0.3, ``from d2l import torch as d2l``)
defines, except those docs/torch.md lists as not covered, which belong to chapters the course
does not teach. The book's names below are the functions, classes and assignments at the top
level of its ``d2l/torch.py``."""
import re
from pathlib import Path

from dagrad import d2l

BOOK_NAMES = """
Accumulator AddNorm AdditiveAttention Animator AttentionDecoder BERTEncoder BERTModel
BananasDataset BasicScheduler Benchmark Classifier DATA_HUB DATA_URL DataModule Decoder
DotProductAttention Encoder EncoderDecoder FashionMNIST GRU HPOScheduler HPOSearcher
HPOTrainer HPOTuner HyperParameters LeNet LinearRegression LinearRegressionScratch MTFraEng
MaskLM MaskedSoftmaxCELoss Module MultiHeadAttention NextSentencePred PositionWiseFFN
PositionalEncoding ProgressBoard RNN RNNLM RNNLMScratch RNNScratch RandomGenerator
RandomSearcher ResNeXtBlock Residual SGD SNLIDataset Seq2Seq Seq2SeqEncoder
SoftmaxRegression SuccessiveHalvingScheduler SyntheticRegressionData TimeMachine Timer
TokenEmbedding Trainer TransformerEncoder TransformerEncoderBlock VOCSegDataset VOC_CLASSES
VOC_COLORMAP Vocab _WikiTextDataset _get_batch_loss_bert _get_mlm_data_from_tokens
_get_next_sentence _get_nsp_data_from_paragraph _pad_bert_inputs _read_wiki
_replace_mlm_tokens abs accuracy add_to_class annotate arange argmax assign_anchor_to_bbox
astype batch_matmul batchify bbox_to_rect bleu box_center_to_corner box_corner_to_center
box_iou build_array_nmt check_len check_shape concat copyfile corr2d cos cosh cpu download
download_extract evaluate_accuracy_gpu evaluate_loss exp expand_dims extract eye float32
frozen_lake get_centers_and_contexts get_data_ch11 get_dataloader_workers
get_fashion_mnist_labels get_negatives get_tokens_and_segments gpu grad_clipping
hpo_objective_lenet init_cnn init_seq2seq int32 int64 linreg linspace load_array
load_data_bananas load_data_fashion_mnist load_data_imdb load_data_nmt load_data_ptb
load_data_snli load_data_voc load_data_wiki log make_env masked_softmax matmul meshgrid
multibox_detection multibox_prior multibox_target nms nn_Module normal num_gpus numpy
offset_boxes offset_inverse ones ones_like plot predict_sentiment predict_seq2seq
predict_snli preprocess_nmt rand randn rbfkernel read_csv_labels read_data_bananas
read_data_nmt read_imdb read_ptb read_snli read_voc_images reduce_mean reduce_sum
reorg_test reorg_train_valid repeat reshape resnet18 sequence_mask set_axes set_figsize sgd
show_Q_function_progress show_bboxes show_heatmaps show_images show_list_len_pair_hist
show_trace_2d show_value_function_progress sigmoid sin sinh size split_batch squared_loss
stack subsample swapaxes synthetic_data tanh tensor to tokenize tokenize_nmt train_2d
train_batch_ch13 train_ch11 train_ch13 train_ch6 train_concise_ch11 train_seq2seq transpose
truncate_pad try_all_gpus try_gpu update_D update_G use_svg_display voc_colormap2label
voc_label_indices voc_rand_crop zeros zeros_like
""".split()
DOCS = Path(__file__).parents[2] / "docs" / "torch.md"


def _not_covered():
    text = DOCS.read_text(encoding="utf-8")
    paragraph = text[text.index("Not covered:"):]
    paragraph = paragraph[:paragraph.index("\n\n")]
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", paragraph))


def test_the_book_has_212_names():
    assert len(BOOK_NAMES) == len(set(BOOK_NAMES)) == 212


def test_every_book_name_is_in_dagrad_d2l_or_listed_as_not_covered():
    not_covered = _not_covered()
    missing = [n for n in BOOK_NAMES if not hasattr(d2l, n) and n not in not_covered]
    assert missing == [], "in the book's library, neither in dagrad.d2l nor in the docs' list"


def test_the_not_covered_list_names_only_what_is_really_absent():
    not_covered = _not_covered()
    assert not_covered <= set(BOOK_NAMES), not_covered - set(BOOK_NAMES)
    assert [n for n in not_covered if hasattr(d2l, n)] == []
    assert len(not_covered) == 49           # 163 of the 212 are in dagrad.d2l
