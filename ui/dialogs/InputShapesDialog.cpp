#include "dialogs/InputShapesDialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "models/Format.h"

namespace npuwb::ui {

InputShapesDialog::InputShapesDialog(const QString& modelName, const std::vector<DeclaredInput>& inputs,
                                     const InputShapeMap& prefill, const QString& prefillSource, QWidget* parent)
    : QDialog(parent), inputs_(inputs), prefillSource_(prefillSource), note_(new QLabel(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
    setObjectName(QStringLiteral("inputShapesDialog"));
    setWindowTitle(tr("Input Shapes — %1").arg(modelName));
    auto* intro = new QLabel(tr("%1 has inputs with symbolic dims. Give the sizes to run, estimate, advise and "
                                "quantize with (remembered for this file).").arg(modelName), this);
    intro->setWordWrap(true);
    auto* form = new QFormLayout;
    for (const DeclaredInput& in : inputs_) {
        auto* edit = new QLineEdit(this);
        edit->setObjectName(QStringLiteral("shape_") + QString::fromStdString(in.name));
        const auto given = prefill.find(in.name);
        if (!in.symbolic()) {
            edit->setText(dimsText(in.dims));
            edit->setReadOnly(true);
        } else if (given != prefill.end()) {
            edit->setText(dimsText(given->second));
        }
        // Each dim by its role where the model says it ("batch, 3, height, width"), else as declared.
        const QStringList roles = dimRoles(in);
        QStringList parts;
        for (size_t i = 0; i < in.dimNames.size(); ++i) {
            const QString declared = QString::fromStdString(in.dimNames[i]);
            const QString role = qsizetype(i) < roles.size() ? roles[qsizetype(i)] : QString();
            parts << (in.dims[i] >= 0 || role.isEmpty() ? declared : role);
        }
        edit->setPlaceholderText(parts.join(QLatin1Char(',')));
        QStringList described;
        for (qsizetype i = 0; i < parts.size(); ++i) {
            const QString role = i < roles.size() ? roles[i] : QString();
            const QString declared = QString::fromStdString(in.dimNames[size_t(i)]);
            described << (role.isEmpty() || role == declared ? declared : tr("%1 (%2)").arg(declared, role));
        }
        auto* declared = new QLabel(tr("declared [%1]").arg(described.join(QStringLiteral(", "))), this);
        declared->setObjectName(QStringLiteral("declared_") + QString::fromStdString(in.name));
        declared->setWordWrap(true);  // long generated dim names must not widen the dialog off the screen
        declared->setTextInteractionFlags(Qt::TextSelectableByMouse);
        auto* row = new QVBoxLayout;
        row->setSpacing(2);
        row->addWidget(edit);
        row->addWidget(declared);
        form->addRow(QString::fromStdString(in.name), row);
        editors_[in.name] = edit;
        connect(edit, &QLineEdit::textChanged, this, &InputShapesDialog::validate);
    }
    note_->setObjectName(QStringLiteral("inputShapesNote"));
    note_->setWordWrap(true);
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(note_);
    layout->addWidget(buttons_);
    resize(520, sizeHint().height());
    validate();
}

InputShapeMap InputShapesDialog::shapes() const {
    InputShapeMap out;
    for (const DeclaredInput& in : inputs_) {
        const Shape dims = parseDims(editors_.at(in.name)->text());
        if (!dims.empty()) out[in.name] = dims;
    }
    return out;
}

QString InputShapesDialog::problem() const {
    for (const DeclaredInput& in : inputs_) {
        if (!in.symbolic()) continue;
        const QString text = editors_.at(in.name)->text().trimmed();
        const QString name = QString::fromStdString(in.name);
        if (text.isEmpty()) return tr("Give a shape for %1.").arg(name);
        const Shape dims = parseDims(text);
        if (dims.empty()) return tr("%1: '%2' is not a list of positive numbers (D1,D2,...).").arg(name, text);
        if (dims.size() != in.dims.size())
            return tr("%1: the model declares rank %2 %3.").arg(name).arg(in.dims.size()).arg(formatShape(in.dimNames));
        for (size_t i = 0; i < dims.size(); ++i)
            if (in.dims[i] >= 0 && in.dims[i] != dims[i])
                return tr("%1: dim %2 is fixed to %3 by the model.").arg(name).arg(i).arg(in.dims[i]);
    }
    return {};
}

QLineEdit* InputShapesDialog::editorFor(const std::string& input) const {
    const auto it = editors_.find(input);
    return it == editors_.end() ? nullptr : it->second;
}

void InputShapesDialog::validate() {
    const QString issue = problem();
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(issue.isEmpty());
    if (!issue.isEmpty())
        note_->setText(issue);
    else
        note_->setText(prefillSource_.isEmpty() ? QString() : tr("Prefilled: %1.").arg(prefillSource_));
}

}  // namespace npuwb::ui
