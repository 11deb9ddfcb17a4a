#pragma once
// The one layer filter every view follows (op type, target, name, time range), owned by the Workbench beside the
// LayerSelection: tables hide the rows it rejects (LayerFilterProxy), charts, the graph and the memory view dim
// them. An empty filter matches everything.
#include <QObject>
#include <QSet>
#include <QString>

#include <optional>

namespace npuwb::ui {

class LayerFilter : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    /// Empty: any op type.
    QSet<QString> opTypes() const { return opTypes_; }
    /// Empty: any target; else "NPU", "CPU" ... compared case-insensitively.
    QString target() const { return target_; }
    /// Case-insensitive substring of the layer's name; empty: any.
    QString name() const { return name_; }
    std::optional<double> minTimeUs() const { return minTimeUs_; }
    std::optional<double> maxTimeUs() const { return maxTimeUs_; }

    /// Some criterion is set.
    bool isActive() const;
    /// `timeUs` < 0: the layer has no time (no run yet); it fails an active time range.
    bool matches(const QString& opType, const QString& target, const QString& name, double timeUs) const;

public slots:
    void setOpTypes(const QSet<QString>& opTypes);
    void setTarget(const QString& target);
    void setName(const QString& name);
    void setTimeRange(std::optional<double> minUs, std::optional<double> maxUs);
    /// Everything back to "any"; emits once.
    void clear();

signals:
    /// Emitted only when the criteria actually change.
    void changed();

private:
    QSet<QString> opTypes_;
    QString target_;
    QString name_;
    std::optional<double> minTimeUs_;
    std::optional<double> maxTimeUs_;
};

}  // namespace npuwb::ui
