"""Tiny models the tests build and save locally, so that the real loading and inference code of each
backend runs without downloading anything.

- ``owlv2``, ``marian``, ``m2m100``, ``videomae``: randomly initialised transformers checkpoints with
  a word-level tokenizer made on the spot.
- ``yunet_like`` / ``sface_like``: ONNX networks with the inputs and outputs OpenCV's FaceDetectorYN
  and FaceRecognizerSF expect, with weights set by hand: the "detector" finds skin-coloured discs
  (see ``media_factory.draw_face``), the "recogniser" describes the colours in the middle of the
  aligned face, so faces drawn with different marks get different features.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

SKIN_RGB = (230, 180, 140)


def word_tokenizer(words: list[str], special: list[str], max_length: int = 32):
    """A fast tokenizer over whole words (plus ``special`` tokens), saved like any other."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<pad>", "</s>", "<unk>", "<s>", *special, *words])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece(prefix="##")
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>", bos_token="<s>",
        model_max_length=max_length, extra_special_tokens=special,
    )


def owlv2(directory: Path) -> Path:
    import torch
    from transformers import Owlv2Config, Owlv2ForObjectDetection, Owlv2ImageProcessor, Owlv2Processor

    tokenizer = word_tokenizer(["a", "photo", "of", "person", "cup", "car", "dog", "laptop", "box", "red"], [], max_length=16)
    config = Owlv2Config(
        text_config=dict(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37,
                         max_position_embeddings=16, pad_token_id=0, bos_token_id=3, eos_token_id=1),
        vision_config=dict(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, image_size=64, patch_size=16),
        projection_dim=32,
    )
    torch.manual_seed(0)
    Owlv2ForObjectDetection(config).save_pretrained(directory)
    Owlv2Processor(image_processor=Owlv2ImageProcessor(size={"height": 64, "width": 64}), tokenizer=tokenizer).save_pretrained(directory)
    return directory


def _seq2seq_sizes(vocab: int) -> dict:
    return dict(vocab_size=vocab, d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
                encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64, pad_token_id=0, eos_token_id=1)


TRANSLATION_WORDS = ["bonjour", "hello", "tout", "le", "monde", "everyone", "the", "world", "sortie", "exit", "bienvenue", "welcome"]


def marian(directory: Path) -> Path:
    import torch
    from transformers import MarianConfig, MarianMTModel

    tokenizer = word_tokenizer(TRANSLATION_WORDS, [])
    torch.manual_seed(0)
    MarianMTModel(MarianConfig(**_seq2seq_sizes(len(tokenizer)), decoder_start_token_id=0, forced_eos_token_id=1)).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def m2m100(directory: Path) -> Path:
    """A multilingual model whose tokenizer knows NLLB's language codes for English and French."""
    import torch
    from transformers import M2M100Config, M2M100ForConditionalGeneration

    tokenizer = word_tokenizer(TRANSLATION_WORDS, ["eng_Latn", "fra_Latn"])
    torch.manual_seed(0)
    M2M100ForConditionalGeneration(M2M100Config(**_seq2seq_sizes(len(tokenizer)), decoder_start_token_id=1)).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def videomae(directory: Path, labels: list[str]) -> Path:
    import torch
    from transformers import VideoMAEConfig, VideoMAEForVideoClassification, VideoMAEImageProcessor

    config = VideoMAEConfig(image_size=32, patch_size=8, num_frames=4, tubelet_size=2, hidden_size=32, num_hidden_layers=1,
                            num_attention_heads=2, intermediate_size=37, num_labels=len(labels),
                            id2label=dict(enumerate(labels)), label2id={v: i for i, v in enumerate(labels)})
    torch.manual_seed(0)
    VideoMAEForVideoClassification(config).save_pretrained(directory)
    VideoMAEImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}).save_pretrained(directory)
    return directory


# ----------------------------------------------------------------------------------- faces (ONNX)

FACE_CELLS = 4  # a drawn face is about four 32-pixel cells across


def yunet_like(path: Path) -> Path:
    """A network with YuNet's interface: input "input" (1, 3, H, W) BGR 0-255 with H, W multiples of
    32; for each stride s in 8, 16, 32 the outputs cls_s, obj_s (1, N, 1), bbox_s (1, N, 4) and kps_s
    (1, N, 10) over the N = (H/s)(W/s) cells. Only stride 32 ever fires: at the cell that is a local
    maximum of skin colour (red well above blue), with a box of FACE_CELLS cells around it."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    def const(name, array):
        return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)

    nodes, inits = [], [
        const("skin_w", np.array([-1 / 255, 0, 1 / 255], np.float32).reshape(1, 3, 1, 1)),
        const("skin_b", [-0.2]),
        const("gain", [100.0]), const("level", [0.06]), const("sharp", [1e4]), const("one", [1.0]), const("zero", [0.0]),
        numpy_helper.from_array(np.array([1, -1, 1], np.int64), "flat_shape"),
    ]
    nodes += [
        helper.make_node("Conv", ["input", "skin_w", "skin_b"], ["redness"]),
        helper.make_node("Relu", ["redness"], ["skin"]),
    ]
    half = 0.5
    box = [half, half, math.log(FACE_CELLS), math.log(FACE_CELLS)]
    eye_dx, eye_dy, mouth_dx, mouth_dy = 0.6, 0.45, 0.45, 0.8
    kps = [half - eye_dx, half - eye_dy, half + eye_dx, half - eye_dy, half, half + 0.1, half - mouth_dx, half + mouth_dy, half + mouth_dx, half + mouth_dy]
    inits += [const("box", np.array(box, np.float32).reshape(1, 1, 4)), const("kps", np.array(kps, np.float32).reshape(1, 1, 10))]
    outputs = []
    for stride in (8, 16, 32):
        s = str(stride)
        nodes.append(helper.make_node("AveragePool", ["skin"], ["cell" + s], kernel_shape=[stride, stride], strides=[stride, stride]))
        if stride == 32:
            nodes += [
                helper.make_node("AveragePool", ["cell32"], ["near32"], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
                helper.make_node("MaxPool", ["near32"], ["max32"], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
                helper.make_node("Sub", ["max32", "near32"], ["gap32"]),
                helper.make_node("Mul", ["gap32", "sharp"], ["gap32x"]),
                helper.make_node("Sub", ["one", "gap32x"], ["peak32raw"]),
                helper.make_node("Relu", ["peak32raw"], ["peak32"]),  # 1 at local maxima, 0 elsewhere
                helper.make_node("Sub", ["near32", "level"], ["above32"]),
                helper.make_node("Mul", ["above32", "gain"], ["logit32"]),
                helper.make_node("Sigmoid", ["logit32"], ["prob32"]),
                helper.make_node("Mul", ["prob32", "peak32"], ["score32"]),
            ]
        else:
            nodes.append(helper.make_node("Mul", ["cell" + s, "zero"], ["score" + s]))
        nodes += [
            helper.make_node("Reshape", ["score" + s, "flat_shape"], ["cls_" + s]),
            helper.make_node("Identity", ["cls_" + s], ["obj_" + s]),
            helper.make_node("Mul", ["cls_" + s, "zero"], ["blank" + s]),
            helper.make_node("Add", ["blank" + s, "box"], ["bbox_" + s]),
            helper.make_node("Add", ["blank" + s, "kps"], ["kps_" + s]),
        ]
    for kind, width in (("cls", 1), ("obj", 1), ("bbox", 4), ("kps", 10)):
        for stride in (8, 16, 32):
            outputs.append(helper.make_tensor_value_info(f"{kind}_{stride}", TensorProto.FLOAT, [1, None, width]))
    graph = helper.make_graph(
        nodes, "yunet_like", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, None, None])], outputs, inits
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def sface_like(path: Path) -> Path:
    """A network with SFace's interface: an aligned 112x112 RGB face in, a feature row out. The
    feature is the colour of each 14-pixel cell of the face's middle, minus skin colour, so skin
    says nothing and the marks that tell the drawn people apart say everything."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    inits = [
        numpy_helper.from_array(np.array([0, 0, 28, 28], np.int64), "starts"),
        numpy_helper.from_array(np.array([1, 3, 84, 84], np.int64), "ends"),
        numpy_helper.from_array(np.array(SKIN_RGB, np.float32).reshape(1, 3, 1, 1), "skin"),
    ]
    nodes = [
        helper.make_node("Slice", ["data", "starts", "ends"], ["middle"]),
        helper.make_node("AveragePool", ["middle"], ["cells"], kernel_shape=[14, 14], strides=[14, 14]),
        helper.make_node("Sub", ["cells", "skin"], ["marks"]),
        helper.make_node("Flatten", ["marks"], ["feature"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "sface_like", [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, 112, 112])],
        [helper.make_tensor_value_info("feature", TensorProto.FLOAT, [1, 48])], inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path
