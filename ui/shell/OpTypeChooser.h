#pragma once
// The filter bar's op type choice: a button whose popup lists the open model's op types as check boxes, so several
// can be chosen at once (Conv and Relu ...); none checked means any op type. The popup stays open while boxes are
// ticked. The button names the choice ("any op type", "Conv", "Conv, Relu", "4 op types").
#include <QSet>
#include <QString>
#include <QStringList>
#include <QToolButton>

class QListWidget;

namespace npuwb::ui {

class OpTypeChooser : public QToolButton {
    Q_OBJECT
public:
    explicit OpTypeChooser(QWidget* parent = nullptr);

    /// The op types offered (sorted by the caller); checked ones the list still has stay checked.
    void setOpTypes(const QStringList& opTypes);
    QStringList opTypes() const;
    /// Checks exactly these (those offered); no checkedChanged.
    void setChecked(const QSet<QString>& opTypes);
    QSet<QString> checked() const;
    /// The popup's list (tests tick its items as a user does).
    QListWidget* list() const { return list_; }

signals:
    /// The user ticked or cleared a box.
    void checkedChanged();

private:
    void updateText();

    QListWidget* list_;
    bool filling_ = false;
};

}  // namespace npuwb::ui
