"""The maths of a page as plain text, for the site's search: ``$\\mathbf c_t = \\tanh(\\mathbf
z)$`` becomes ``cₜ = tanh(z)`` and ``$\\hat{\\mathbf y}^\\top$`` becomes ``ŷᵀ``.

The pages themselves typeset their formulas with MathJax in the browser; the search index
holds the page's text as written, where a snippet would show the raw TeX. ``plain(text)``
rewrites every formula in ``text`` (``$…$``, ``$$…$$``, ``\\(…\\)``, ``\\[…\\]``) as the
characters a reader would see: Greek letters and operators by their Unicode signs, fonts and
spacing dropped, fractions as ``a/b``, accents as combining marks (``ŷ``), sub- and
superscripts in small Unicode characters where each has one (else after ``_`` or ``^``, as in
``𝔼_q``). A command it does not know keeps its name without the backslash: nothing is lost,
nothing raw remains.
"""
import re
import unicodedata

SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ",
    "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "ell": "ℓ",
    "partial": "∂", "nabla": "∇", "infty": "∞", "sum": "Σ", "prod": "∏", "int": "∫",
    "top": "ᵀ", "intercal": "ᵀ", "times": "×", "cdot": "·", "odot": "⊙", "otimes": "⊗",
    "circ": "∘", "star": "⋆", "pm": "±", "mp": "∓", "div": "÷", "in": "∈", "notin": "∉",
    "subset": "⊂", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠",
    "approx": "≈", "sim": "∼", "propto": "∝", "equiv": "≡", "mid": "|", "to": "→",
    "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒", "Longrightarrow": "⟹",
    "iff": "⟺", "mapsto": "↦", "dots": "…", "ldots": "…", "cdots": "⋯", "vdots": "⋮",
    "lVert": "‖", "rVert": "‖", "Vert": "‖", "|": "‖", "lvert": "|", "rvert": "|",
    "langle": "⟨", "rangle": "⟩", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉",
    "{": "{", "}": "}", "_": "_", "%": "%", "$": "$", "&": "&", "#": "#",
    "forall": "∀", "exists": "∃", "emptyset": "∅", "neg": "¬", "land": "∧", "lor": "∨",
}
# Relations and binary operators: a space either side, as TeX sets them.
SPACED = {"times", "cdot", "odot", "otimes", "circ", "pm", "mp", "div", "in", "notin", "subset",
          "le", "leq", "ge", "geq", "ne", "neq", "approx", "sim", "propto", "equiv", "mid",
          "to", "rightarrow", "leftarrow", "Rightarrow", "Longrightarrow", "iff", "mapsto",
          "land", "lor"}
OPERATORS = set("=<>+-")     # set with spaces around them: a space written before one stays
SPACES = {",": " ", ";": " ", ":": " ", " ": " ", "quad": "  ", "qquad": "  ", "!": "",
          "\\": "; "}
# Commands that only size or style what follows, and environments' markers: dropped.
DROPPED = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr",
           "displaystyle", "textstyle", "scriptstyle", "limits", "nolimits"}
# One argument, shown as its text (fonts, names of functions).
FONTS = {"mathbf", "mathrm", "mathsf", "mathit", "mathcal", "mathtt", "mathfrak",
         "boldsymbol", "bm", "text", "textbf", "textit", "textrm", "mbox", "operatorname",
         "underbrace", "overbrace", "underline"}
DOUBLE_STRUCK = dict(zip("RNZQCE", "ℝℕℤℚℂ𝔼"))
ACCENTS = {"hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303",
           "bar": "\u0304", "overline": "\u0305", "vec": "\u20d7", "overrightarrow": "\u20d7",
           "overleftarrow": "\u20d6", "dot": "\u0307", "ddot": "\u0308"}
FRACTIONS = {"frac", "tfrac", "dfrac", "cfrac"}
SUPERSCRIPTS = dict(zip("0123456789+-=()abcdefghijklmnoprstuvwxyzT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾"
                        "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᵀ"), **{c: c for c in "ᵀ*′"})
SUBSCRIPTS = dict(zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))

# $$…$$, \[…\], \(…\) and $…$ on one line; \$ is a dollar sign (MathJax's processEscapes).
FORMULA = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|(?<![\\$])\$([^$\n]+?)(?<!\\)\$",
                     re.S)
_TOKEN = re.compile(r"\\([A-Za-z]+|.)|([{}^_&~])|(\s+)|([^\\{}^_&~\s])", re.S)   # one char


def plain(text):
    """``text`` with every formula in it written as plain characters (see the module)."""
    return FORMULA.sub(lambda m: formula(next(g for g in m.groups() if g is not None)), text)


def formula(tex):
    """One formula's TeX (without its ``$`` delimiters) as plain characters."""
    tokens = list(_TOKEN.finditer(tex))
    out, _ = _sequence(tokens, 0, stop_at_brace=False)
    return unicodedata.normalize("NFC", re.sub(r"\s+", " ", out).strip())   # ŷ as one character


def _sequence(tokens, i, stop_at_brace):
    """Convert tokens from ``i`` up to the closing brace of the group (or the end); returns
    (text, index after the group)."""
    parts = []
    while i < len(tokens):
        if stop_at_brace and tokens[i].group(2) == "}":
            return "".join(parts), i + 1
        text, i = _item(tokens, i)
        parts.append(text)
    return "".join(parts), i


def _argument(tokens, i):
    """The next argument: a braced group, or one token; returns (text, next index)."""
    while i < len(tokens) and tokens[i].group(3):          # spaces before an argument
        i += 1
    if i >= len(tokens):
        return "", i
    if tokens[i].group(2) == "{":
        return _sequence(tokens, i + 1, stop_at_brace=True)
    return _item(tokens, i)


def _item(tokens, i):
    """One token (or a command with its arguments) as text; returns (text, next index)."""
    command, special, space, word = tokens[i].groups()
    i += 1
    if word is not None:
        return word, i
    if space is not None:
        return " ", i
    if special == "{":
        return _sequence(tokens, i, stop_at_brace=True)
    if special in ("^", "_"):
        arg, i = _argument(tokens, i)
        return _script(arg, SUPERSCRIPTS if special == "^" else SUBSCRIPTS, special), i
    if special is not None:                                 # a stray }, an & or a ~
        return "" if special == "}" else " ", i
    if command in SYMBOLS:
        skipped = i
        while command.isalpha() and i < len(tokens) and tokens[i].group(3):
            i += 1                         # TeX: the spaces after a command's name are its own
        if command in SPACED:
            return f" {SYMBOLS[command]} ", i
        before_operator = i > skipped and i < len(tokens) and tokens[i].group(4) in OPERATORS
        return SYMBOLS[command] + (" " if before_operator else ""), i
    if command in SPACES:
        return SPACES[command], i
    if command in DROPPED:
        return "", i
    if command in ("begin", "end"):
        _, i = _argument(tokens, i)                         # the environment's name
        return " ", i
    if command in FONTS:
        arg, i = _argument(tokens, i)
        if command in ("underbrace", "overbrace") and i < len(tokens) and \
                tokens[i].group(2) in ("_", "^"):
            _, i = _argument(tokens, i + 1)                 # the brace's label
        return arg, i
    if command == "mathbb":
        arg, i = _argument(tokens, i)
        return "".join(DOUBLE_STRUCK.get(c, c) for c in arg), i
    if command in ACCENTS:
        arg, i = _argument(tokens, i)
        return arg + ACCENTS[command], i
    if command in FRACTIONS:
        top, i = _argument(tokens, i)
        bottom, i = _argument(tokens, i)
        return f"{_grouped(top)}/{_grouped(bottom)}", i
    if command == "sqrt":
        arg, i = _argument(tokens, i)
        return "√" + _grouped(arg), i
    return command, i                      # \log, \tanh, \max, ... and unknown names


def _grouped(text):
    """``text`` in parentheses when it is more than one term."""
    text = text.strip()
    return f"({text})" if re.search(r"[\s+\-−/·×]", text) else text


def _script(text, table, mark):
    """A sub- or superscript in small Unicode characters when each has one, else ``_x``."""
    text = text.strip()
    if text and all(c in table for c in text):
        return "".join(table[c] for c in text)
    return mark + _grouped(text) if len(text) > 1 else mark + text
