"""Stand-in for RKNN-Toolkit2's ``rknn.api`` (tests only, never shipped).

It records every call a conversion script makes, as one JSON object per line in the file named by
$RKNN_STANDIN_LOG ({"call": NAME, "args": {...}}), and writes the files the real toolkit writes:
hybrid_quantization_step1 leaves <model>.model, <model>.data and <model>.quantization.cfg in the working folder
(the cfg with an empty custom_quantize_layers and one quantize_parameters entry per ONNX node output, read with
the onnx package when it imports), hybrid_quantization_step2 records the custom_quantize_layers it finds in the
cfg, and export_rknn writes a small file starting with b"RKNN-STANDIN\\n" followed by the recorded calls.
$RKNN_STANDIN_FAIL=NAME makes that call return -1; $RKNN_STANDIN_SLEEP=SECONDS makes build() sleep (cancel tests).
"""
import json
import os
import re
import time


def _log(call, **args):
    path = os.environ.get("RKNN_STANDIN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"call": call, "args": args}) + "\n")


def _result(call):
    return -1 if os.environ.get("RKNN_STANDIN_FAIL") == call else 0


def _node_outputs(model):
    try:
        import onnx
        return [out for node in onnx.load(model).graph.node for out in node.output if out]
    except Exception:
        return []


def _read_custom_layers(cfg):
    """The keys under custom_quantize_layers (block style, as a script writes them), unquoted."""
    layers, inside = {}, False
    with open(cfg, encoding="utf-8") as f:
        for line in f.read().splitlines():
            if line.startswith("custom_quantize_layers:"):
                inside = True
                continue
            if inside and line.startswith((" ", "\t")):
                m = re.match(r"\s+'((?:[^']|'')*)':\s*(\S+)\s*$", line)
                if not m:
                    raise ValueError(f"{cfg}: cannot parse custom_quantize_layers line {line!r}")
                layers[m.group(1).replace("''", "'")] = m.group(2)
                continue
            inside = False
    return layers


class RKNN:
    def __init__(self, verbose=False, verbose_file=None):
        self.model = None
        self.calls = []
        _log("RKNN", verbose=verbose)

    def _record(self, call, **args):
        self.calls.append({"call": call, "args": args})
        _log(call, **args)
        return _result(call)

    def config(self, **kwargs):
        return self._record("config", **kwargs)

    def load_onnx(self, model, inputs=None, input_size_list=None, outputs=None):
        self.model = model
        if not os.path.isfile(model):
            self._record("load_onnx", model=model, error="missing")
            return -1
        return self._record("load_onnx", model=model, inputs=inputs, input_size_list=input_size_list, outputs=outputs)

    def build(self, do_quantization=True, dataset=None, rknn_batch_size=None):
        delay = float(os.environ.get("RKNN_STANDIN_SLEEP", "0"))
        lines = None
        if dataset:
            with open(dataset, encoding="utf-8") as f:
                lines = [l for l in f.read().splitlines() if l.strip()]
        ret = self._record("build", do_quantization=do_quantization, dataset=dataset, dataset_lines=lines)
        time.sleep(delay)
        return ret

    def hybrid_quantization_step1(self, dataset=None, rknn_batch_size=None, proposal=False,
                                  proposal_dataset_size=1, custom_hybrid=None):
        ret = self._record("hybrid_quantization_step1", dataset=dataset, proposal=proposal, cwd=os.getcwd())
        name = os.path.splitext(os.path.basename(self.model))[0]
        with open(name + ".model", "w") as f:
            f.write("stand-in model\n")
        with open(name + ".data", "w") as f:
            f.write("stand-in data\n")
        with open(name + ".quantization.cfg", "w") as f:
            f.write("custom_quantize_layers: {}\nquantize_parameters:\n")
            for out in _node_outputs(self.model):
                f.write(f"    '{out}':\n        qtype: asymmetric_quantized\n        qmethod: layer\n        dtype: int8\n")
        return ret

    def hybrid_quantization_step2(self, model_input, data_input, model_quantization_cfg):
        for path in (model_input, data_input, model_quantization_cfg):
            if not os.path.isfile(path):
                self._record("hybrid_quantization_step2", error="missing " + path)
                return -1
        return self._record("hybrid_quantization_step2", model_input=model_input, data_input=data_input,
                            model_quantization_cfg=model_quantization_cfg,
                            custom_quantize_layers=_read_custom_layers(model_quantization_cfg))

    def export_rknn(self, export_path, **kwargs):
        ret = self._record("export_rknn", export_path=export_path)
        if ret == 0:
            with open(export_path, "wb") as f:
                f.write(b"RKNN-STANDIN\n" + json.dumps(self.calls).encode() + b"\n")
        return ret

    def release(self):
        _log("release")
