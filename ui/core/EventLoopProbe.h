#pragma once
// Measures how long the GUI thread stays blocked: a timer asks to fire every few milliseconds on this thread, and
// any gap between two firings beyond the interval is time the event loop could not answer (a frozen window). The
// longest gap is kept overall and per phase (what the app was doing: "open", "layout", "run" ...), with marks (named
// moments, ms since the probe started) beside them. `npuwb` installs one when NPUWB_EVENT_LOOP_PROBE=FILE is set and
// writes the figures to FILE as JSON at exit (tests/bench/bench_gui_graph.sh reads them); tests use it directly.
#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QTimer>

#include <map>

namespace npuwb::ui {

class EventLoopProbe : public QObject {
    Q_OBJECT
public:
    explicit EventLoopProbe(QObject* parent = nullptr, int intervalMs = 5);

    /// What the app is doing from now on; blocks are then counted under this name.
    void setPhase(const QString& phase);
    QString phase() const { return phase_; }
    /// Records the moment `name` (ms since the probe started); the first time counts.
    void mark(const QString& name);

    /// The longest block seen (ms beyond the interval), overall or in one phase (0 when none seen).
    double longestBlockMs() const { return longest_; }
    double longestBlockMs(const QString& phase) const;
    /// Whole `phase`s (phase -> ms), marks, longest block and the number of firings, as written to the file.
    QJsonObject toJson() const;
    /// Writes toJson() to `file` atomically; false (and a message on stderr) when it cannot.
    bool writeJson(const QString& file) const;

    /// The probe `npuwb` installs when NPUWB_EVENT_LOOP_PROBE names a file (nullptr otherwise), written at exit.
    static EventLoopProbe* fromEnvironment(QObject* parent);

private:
    void onTick();
    double blockMs(qint64 fromNs, qint64 toNs) const;
    /// Counts the time since the last firing or phase change as a block of the current phase.
    void endSegment(qint64 now);

    QTimer timer_;
    QElapsedTimer clock_;
    qint64 lastTickNs_ = 0;
    qint64 segmentStartNs_ = 0;  // the last firing or phase change
    int intervalMs_;
    qint64 ticks_ = 0;
    double longest_ = 0;
    QString phase_ = QStringLiteral("startup");
    std::map<QString, double> longestByPhase_;
    std::map<QString, double> phaseTimeMs_;
    qint64 phaseStartNs_ = 0;
    std::map<QString, double> marks_;
};

}  // namespace npuwb::ui
