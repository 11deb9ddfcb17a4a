#pragma once
// Concrete sizes for a model's symbolic input dims (PP-OCRv4 det: x [?,3,?,?]), as the user gives them in the
// Input Shapes dialog: what each input declares, whether the chosen shapes cover every symbolic dim, the shapes
// remembered per model file (QSettings) and those a model's metadata suggests, and the text views' headers show.
#include <QString>
#include <QStringList>

#include <map>
#include <string>
#include <vector>

#include "npuwb/Report.h"
#include "npuwb/ir/Graph.h"

class QSettings;

namespace npuwb::ui {

using InputShapeMap = std::map<std::string, Shape>;

/// A graph input (not an initializer) as the model declares it: a dim is its size, or -1 when symbolic.
struct DeclaredInput {
    std::string name;
    std::vector<int64_t> dims;
    std::vector<std::string> dimNames;  // "p2o.DynamicDimension.0" for a symbolic dim, else its size as text
    bool symbolic() const;
};

std::vector<DeclaredInput> declaredInputs(const Model& model);
/// What each dim of `input` stands for, where the model says it: a symbolic dim's own name when it is a word
/// ("batch_size", "sequence"; N/C/H/W spelled out), else the image layout a fixed channel dim of 1, 3 or 4 marks
/// (NCHW or NHWC: batch, channels, height, width). Empty for a dim nothing names.
QStringList dimRoles(const DeclaredInput& input);
bool hasSymbolicInputs(const std::vector<DeclaredInput>& inputs);
/// Whether `shapes` gives every symbolic input a shape of its rank that keeps its fixed dims.
bool coversSymbolicInputs(const std::vector<DeclaredInput>& inputs, const InputShapeMap& shapes);
/// What is wrong with shapes given for these inputs (an unknown input, another rank, a fixed dim changed), naming the
/// input and what it declares; empty when every one fits.
QString givenShapesProblem(const std::vector<DeclaredInput>& inputs, const InputShapeMap& shapes);
/// The first input with symbolic dims that `shapes` leaves out, named with what it declares; empty when none is.
QString missingShapesProblem(const std::vector<DeclaredInput>& inputs, const InputShapeMap& shapes);

/// Shapes from the model's metadata_props, when it carries them: "input_shapes" (or "input_shape") as
/// "NAME=D1,D2,...;NAME2=..." (the CLI's --input-shape syntax), or bare "D1,D2,..." for a single-input model.
InputShapeMap shapesFromMetadata(const Model& model);

/// The shapes last used with the model file at `modelPath` (empty when none), and remembering them.
InputShapeMap rememberedShapes(QSettings& settings, const QString& modelPath);
void rememberShapes(QSettings& settings, const QString& modelPath, const InputShapeMap& shapes);

/// What the Input Shapes dialog starts from: the shapes set now, else those last used with the file at `modelPath`,
/// else the model's metadata; `source` says which (empty when none applies).
InputShapeMap prefillShapes(const Model& model, const QString& modelPath, const InputShapeMap& current,
                            QSettings& settings, QString* source);

/// "1,3,480,480" -> {1,3,480,480}; empty when a part is not a positive number.
Shape parseDims(const QString& text);
QString dimsText(const Shape& shape);
/// "input x [1,3,480,480]" (several inputs joined by ", "); empty for no shapes.
QString inputShapesText(const InputShapeMap& shapes);
/// The inputs a report's model was run or estimated with: "input x [1,3,480,480]" (`word` false: "x [1,3,480,480]").
QString inputShapesText(const ModelSummary& model, bool word = true);

}  // namespace npuwb::ui
