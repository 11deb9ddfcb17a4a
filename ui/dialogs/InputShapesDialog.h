#pragma once
// Asks for concrete sizes of a model's symbolic input dims (PP-OCRv4 det: x [?,3,?,?]) before Run, Estimate,
// Advise or Quantize, and from Run > Input Shapes...: one row per input with its declared dims and an editable
// shape (fixed inputs read-only). OK is enabled once every symbolic input has a shape of its rank that keeps the
// fixed dims; the line under the rows says what is wrong otherwise and where the prefilled shapes came from.
#include <QDialog>

#include <map>
#include <string>

#include "models/InputShapes.h"

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace npuwb::ui {

class InputShapesDialog : public QDialog {
    Q_OBJECT
public:
    /// `prefill`: shapes to start from; `prefillSource` says where they came from ("last used with this file").
    InputShapesDialog(const QString& modelName, const std::vector<DeclaredInput>& inputs, const InputShapeMap& prefill,
                      const QString& prefillSource, QWidget* parent = nullptr);

    /// The shapes entered for every input whose field parses (fixed inputs: their declared shape).
    InputShapeMap shapes() const;
    /// Empty when OK may be pressed, else what to fix.
    QString problem() const;
    QLineEdit* editorFor(const std::string& input) const;
    QDialogButtonBox* buttons() const { return buttons_; }
    QLabel* noteLabel() const { return note_; }

private:
    void validate();

    std::vector<DeclaredInput> inputs_;
    std::map<std::string, QLineEdit*> editors_;
    QString prefillSource_;
    QLabel* note_;
    QDialogButtonBox* buttons_;
};

}  // namespace npuwb::ui
