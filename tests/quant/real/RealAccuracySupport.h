#pragma once
// Shared by the real accuracy checks: run a model over a data set, write images for data set lists, and the
// QGuiApplication the text renderer needs.
#include <QImage>
#include <QString>

#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "npuwb/SampleSource.h"

namespace npuwb::realquant {

/// Loads an ONNX model; the test data folder comes from CMake (NPUWB_TEST_MODELS).
Model loadTestModel(const std::string& fileName);
/// Runs `model` on every sample (backend "auto") and returns, per sample, the named outputs flattened to floats
/// and concatenated in the order given.
std::vector<std::vector<float>> runOutputs(const Model& model, const quant::SampleSource& samples,
                                           const std::vector<std::string>& outputs);
/// Saves images as PNG files in `folder` (created) and writes `folder`/list.txt naming them; returns the list.
std::string writeImageList(const std::string& folder, const std::vector<QImage>& images);
/// A fresh folder under the test's build directory.
std::string freshFolder(const std::string& name);

}  // namespace npuwb::realquant
