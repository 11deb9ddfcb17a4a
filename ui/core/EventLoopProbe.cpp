#include "core/EventLoopProbe.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QTextStream>

#include <algorithm>
#include <exception>

#include "npuwb/AtomicFile.h"

namespace npuwb::ui {

EventLoopProbe::EventLoopProbe(QObject* parent, int intervalMs) : QObject(parent), intervalMs_(intervalMs) {
    clock_.start();
    longestByPhase_[phase_] = 0.0;
    timer_.setTimerType(Qt::PreciseTimer);  // a coarse timer may fire 5% late by design: that is no block
    timer_.setInterval(intervalMs_);
    connect(&timer_, &QTimer::timeout, this, &EventLoopProbe::onTick);
    timer_.start();
}

void EventLoopProbe::onTick() {
    const qint64 now = clock_.nsecsElapsed();
    // The first firing waits for the event loop to start: time before app.exec() is startup, not a block.
    if (ticks_++ > 0) {
        longest_ = std::max(longest_, blockMs(lastTickNs_, now));
        endSegment(now);
    }
    lastTickNs_ = segmentStartNs_ = now;
}

double EventLoopProbe::blockMs(qint64 fromNs, qint64 toNs) const {
    return std::max(0.0, double(toNs - fromNs) / 1e6 - intervalMs_);
}

void EventLoopProbe::endSegment(qint64 now) {
    double& inPhase = longestByPhase_[phase_];
    inPhase = std::max(inPhase, blockMs(segmentStartNs_, now));
    segmentStartNs_ = now;
}

void EventLoopProbe::setPhase(const QString& phase) {
    const qint64 now = clock_.nsecsElapsed();
    // A block that spans the change counts in each phase for its own part (the overall figure has it whole).
    if (ticks_ > 0) endSegment(now);
    phaseTimeMs_[phase_] += double(now - phaseStartNs_) / 1e6;
    phaseStartNs_ = now;
    phase_ = phase;
    longestByPhase_.try_emplace(phase_, 0.0);
}

void EventLoopProbe::mark(const QString& name) { marks_.try_emplace(name, double(clock_.nsecsElapsed()) / 1e6); }

double EventLoopProbe::longestBlockMs(const QString& phase) const {
    const auto it = longestByPhase_.find(phase);
    return it == longestByPhase_.end() ? 0.0 : it->second;
}

QJsonObject EventLoopProbe::toJson() const {
    QJsonObject phases;
    for (const auto& [name, ms] : longestByPhase_) {
        double spent = phaseTimeMs_.count(name) ? phaseTimeMs_.at(name) : 0.0;
        if (name == phase_) spent += double(clock_.nsecsElapsed() - phaseStartNs_) / 1e6;
        phases.insert(name, QJsonObject{{QStringLiteral("longestBlockMs"), ms}, {QStringLiteral("durationMs"), spent}});
    }
    QJsonObject marks;
    for (const auto& [name, ms] : marks_) marks.insert(name, ms);
    return QJsonObject{{QStringLiteral("intervalMs"), intervalMs_},
                       {QStringLiteral("ticks"), double(ticks_)},
                       {QStringLiteral("longestBlockMs"), longest_},
                       {QStringLiteral("phases"), phases},
                       {QStringLiteral("marks"), marks}};
}

bool EventLoopProbe::writeJson(const QString& file) const {
    try {
        writeFileAtomically(file.toStdString(), QJsonDocument(toJson()).toJson().toStdString());
        return true;
    } catch (const std::exception& e) {
        QTextStream(stderr) << "npuwb: cannot write the event loop figures: " << e.what() << '\n';
        return false;
    }
}

EventLoopProbe* EventLoopProbe::fromEnvironment(QObject* parent) {
    const QString file = qEnvironmentVariable("NPUWB_EVENT_LOOP_PROBE");
    if (file.isEmpty()) return nullptr;
    auto* probe = new EventLoopProbe(parent);
    QObject::connect(qApp, &QCoreApplication::aboutToQuit, probe, [probe, file] { probe->writeJson(file); });
    return probe;
}

}  // namespace npuwb::ui
