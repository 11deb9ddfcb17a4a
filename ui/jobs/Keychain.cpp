#include "jobs/Keychain.h"

#include <qt6keychain/keychain.h>

namespace npuwb::ui::Keychain {

QString keyFor(const QString& userHostPort, const QString& kind) {
    return kind == QLatin1String("passphrase") ? userHostPort + QStringLiteral(" passphrase") : userHostPort;
}

void read(const QString& key, QObject* context, std::function<void(std::optional<QString>, const QString&)> done) {
    auto* job = new QKeychain::ReadPasswordJob(QString::fromLatin1(kService));
    job->setAutoDelete(true);
    job->setInsecureFallback(false);  // never a plain-text copy
    job->setKey(key);
    QObject::connect(job, &QKeychain::Job::finished, context, [done = std::move(done)](QKeychain::Job* j) {
        auto* r = static_cast<QKeychain::ReadPasswordJob*>(j);
        if (r->error() == QKeychain::NoError) done(r->textData(), QString());
        else if (r->error() == QKeychain::EntryNotFound) done(std::nullopt, QString());
        else done(std::nullopt, r->errorString());
    });
    job->start();
}

void write(const QString& key, const QString& secret, QObject* context, std::function<void(const QString&)> done) {
    auto* job = new QKeychain::WritePasswordJob(QString::fromLatin1(kService));
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    job->setTextData(secret);
    QObject::connect(job, &QKeychain::Job::finished, context, [done = std::move(done)](QKeychain::Job* j) {
        if (done) done(j->error() == QKeychain::NoError ? QString() : j->errorString());
    });
    job->start();
}

void remove(const QString& key, QObject* context, std::function<void(const QString&)> done) {
    auto* job = new QKeychain::DeletePasswordJob(QString::fromLatin1(kService));
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    QObject::connect(job, &QKeychain::Job::finished, context, [done = std::move(done)](QKeychain::Job* j) {
        const bool ok = j->error() == QKeychain::NoError || j->error() == QKeychain::EntryNotFound;
        if (done) done(ok ? QString() : j->errorString());
    });
    job->start();
}

}  // namespace npuwb::ui::Keychain
