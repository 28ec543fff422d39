"""Small files in the formats and at the places the book's data sets have, for the tests of
``dagrad.d2l`` (``root`` plays the book's ``../data``)."""
import gzip
import struct

import numpy as np

WORDS = ("the time traveller for so it will be convenient to speak of him was expounding a "
         "recondite matter to us his grey eyes shone and twinkled and his usually pale face "
         "was flushed and animated the fire burned brightly").split()

PAIRS = [("Go.", "Va !"), ("Hi.", "Salut !"), ("Run!", "Cours !"), ("Run!", "Courez !"),
         ("Who?", "Qui ?"), ("Wow!", "Ça alors !"), ("Fire!", "Au feu !"), ("Help!", "À l'aide !"),
         ("Jump.", "Saute."), ("Stop!", "Ça suffit !"), ("Stop!", "Stop !"),
         ("Wait!", "Attends !"), ("Wait!", "Attendez !"), ("Go on.", "Poursuis."),
         ("Go on.", "Continuez."), ("Hello!", "Bonjour !"), ("I see.", "Je comprends."),
         ("I try.", "J'essaye."), ("I won!", "J'ai gagné !"), ("Oh no!", "Oh non !"),
         ("Relax.", "Calme-toi."), ("Smile.", "Souriez !"), ("Attack!", "Attaque !"),
         ("Get up.", "Lève-toi."), ("Go now.", "Va, maintenant."), ("Got it!", "Compris !"),
         ("He ran.", "Il a couru."), ("Hop in.", "Montez."), ("Hug me.", "Serre-moi !"),
         ("I fell.", "Je suis tombé."), ("I know.", "Je sais."), ("I left.", "Je suis parti.")]


def idx_bytes(array):
    """``array`` (uint8) in the IDX format: 0, 0, type 0x08, ndim, the sizes, the bytes."""
    array = np.asarray(array, np.uint8)
    header = struct.pack(">BBBB", 0, 0, 8, array.ndim) + struct.pack(
        f">{array.ndim}i", *array.shape)
    return header + array.tobytes()


def write_fashion_mnist(root, n_train=120, n_val=40, seed=0, compress=True):
    """The four IDX files in ``root/FashionMNIST/raw``: 28x28 images whose class shows as a
    bright band at a class-dependent row over noise, labels cycling through 0..9."""
    rng = np.random.default_rng(seed)
    raw = root / "FashionMNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for prefix, n in (("train", n_train), ("t10k", n_val)):
        labels = np.arange(n) % 10
        images = rng.integers(0, 100, (n, 28, 28))
        for i, label in enumerate(labels):
            images[i, 2 + 2 * label:4 + 2 * label] += 150
        for kind, array in (("images-idx3", images), ("labels-idx1", labels)):
            name = raw / f"{prefix}-{kind}-ubyte"
            data = idx_bytes(array)
            if compress:
                with gzip.open(f"{name}.gz", "wb") as f:
                    f.write(data)
            else:
                name.write_bytes(data)
    return raw


def write_time_machine(root, n_words=1200, seed=0):
    """``root/timemachine.txt``: a title line and ``n_words`` words of the novel's opening."""
    rng = np.random.default_rng(seed)
    words = [WORDS[i] for i in rng.integers(0, len(WORDS), n_words)]
    lines = [" ".join(words[i:i + 12]).capitalize() + "." for i in range(0, n_words, 12)]
    path = root / "timemachine.txt"
    path.write_text("The Time Machine, by H. G. Wells [1898]\n\n" + "\n".join(lines) + "\n",
                    encoding="utf-8")
    return path


def write_fra_eng(root, pairs=PAIRS, repeat=4):
    """``root/fra-eng/fra.txt``: English<TAB>French, one pair a line, the list ``repeat`` times
    (so every word is seen twice and stays in the vocabulary)."""
    folder = root / "fra-eng"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"{en}\t{fr}" for _ in range(repeat) for en, fr in pairs]
    path = folder / "fra.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_airfoil(root, n=1503, seed=0):
    """``root/airfoil_self_noise.dat``: six tab-separated columns (frequency, angle, chord,
    velocity, thickness, sound level), the last a noisy linear function of the others."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.choice([800, 1000, 2000, 4000], n), rng.uniform(0, 20, n),
                         rng.choice([0.0254, 0.1016, 0.3048], n), rng.choice([39.6, 71.3], n),
                         rng.uniform(0.0004, 0.05, n)])
    y = 130 - 0.001 * X[:, 0] - 0.3 * X[:, 1] - 20 * X[:, 2] + 0.05 * X[:, 3] \
        - 100 * X[:, 4] + rng.normal(0, 2, n)
    path = root / "airfoil_self_noise.dat"
    np.savetxt(path, np.column_stack([X, y]), delimiter="\t", fmt="%.6g")
    return path


def write_wikitext(root, n_paragraphs=40, seed=0):
    """``root/wikitext-2/wiki.train.tokens`` in WikiText's layout: " = Title = " headings, blank
    lines of one space, and paragraph lines of sentences ending " . ", words from ``WORDS``
    (each seen well over five times, so the vocabulary keeps them)."""
    rng = np.random.default_rng(seed)
    lines = [" = The Time Traveller = \n", " \n"]
    for p in range(n_paragraphs):
        sentences = [" ".join(WORDS[i] for i in rng.integers(0, len(WORDS), rng.integers(3, 8)))
                     for _ in range(rng.integers(2, 6))]
        lines += [" " + " . ".join(sentences).capitalize() + " . \n", " \n"]
        if p % 10 == 9:
            lines += [f" = = Part {p // 10} = = \n", " \n"]
    folder = root / "wikitext-2"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "wiki.train.tokens"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def write_ptb(root, n_lines=300, seed=0):
    """``root/ptb/ptb.train.txt`` in the Penn Treebank's layout: one lower-case sentence a line,
    words separated by spaces, a leading space, rare words as "<unk>" and numbers as "N"."""
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(n_lines):
        words = [WORDS[i] for i in rng.integers(0, len(WORDS), rng.integers(4, 15))]
        words[rng.integers(len(words))] = rng.choice(["<unk>", "N"])
        lines.append(" " + " ".join(words) + " ")
    folder = root / "ptb"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ptb.train.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
