"""transformers' own placeholder counts for Qwen2.5-VL / Qwen3-VL images, for the parity test
(test/rollout/image-placeholders-parity.test.ts).

Reads JSON from stdin: {"cases": [{"family": "qwen2_5_vl" | "qwen3_vl", "config": {preprocessor
config fields}, "width": W, "height": H, "path": FILE.png | FILE.jpg}]}. For each case it writes a
W x H RGB image to the path (PNG or JPEG by its suffix), builds the image processor both families use
(Qwen2VLImageProcessorPil: the engines' venv has no torchvision) from the config dict, nothing
downloaded, runs it on the image read back from the file, and expands the image with the family processor's own
replace_image_token (image_grid_thw.prod() // merge_size**2 pads). The processor classes themselves
cannot be built here: without torchvision their video processor fails to load. Writes one JSON line
per case: the number of <|image_pad|> tokens and image_grid_thw, or the processor's error.
"""

import json
import sys
from types import SimpleNamespace

from PIL import Image
from transformers import Qwen2_5_VLProcessor, Qwen2VLImageProcessorPil, Qwen3VLProcessor

IMAGE_PAD = "<|image_pad|>"
PROCESSORS = {"qwen2_5_vl": Qwen2_5_VLProcessor, "qwen3_vl": Qwen3VLProcessor}


def main() -> None:
    request = json.load(sys.stdin)
    image_processors = {}
    for case in request["cases"]:
        key = json.dumps(case["config"], sort_keys=True)
        if key not in image_processors:
            image_processors[key] = Qwen2VLImageProcessorPil(**case["config"])
        image_processor = image_processors[key]
        Image.new("RGB", (case["width"], case["height"]), (120, 60, 200)).save(case["path"])
        try:
            with Image.open(case["path"]) as image:
                out = image_processor(images=[image], return_tensors="np")
        except ValueError as error:
            print(json.dumps({"error": str(error)}), flush=True)
            continue
        grid = out["image_grid_thw"]
        processor = SimpleNamespace(image_processor=image_processor, image_token=IMAGE_PAD)
        pads = PROCESSORS[case["family"]].replace_image_token(processor, {"image_grid_thw": grid}, 0)
        tokens = len(pads) // len(IMAGE_PAD)
        assert pads == IMAGE_PAD * tokens
        print(json.dumps({"tokens": tokens, "grid": [int(x) for x in grid[0]]}), flush=True)


if __name__ == "__main__":
    main()
