// SPDX-License-Identifier: GPL-3.0-or-later
// `tpuscope --bench-load` (app/benchmode.h) on a tiny generated trace: the JSON line the
// benchmark suite reads must carry every field, with values that fit together.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include <gtest/gtest.h>

namespace {

/// A Chrome trace of `perCore` 'X' events on each of two TPU cores' "XLA Ops" lines.
QByteArray tinyTrace(int perCore)
{
    QByteArray out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    for (int core = 0; core < 2; ++core) {
        out += QByteArray(
            "{\"ph\":\"M\",\"pid\":%1,\"name\":\"process_name\",\"args\":{\"name\":\"/device:TPU:%2\"}},\n")
                   .replace("%1", QByteArray::number(core + 1))
                   .replace("%2", QByteArray::number(core));
        out += QByteArray("{\"ph\":\"M\",\"pid\":%1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"XLA "
                          "Ops\"}},\n")
                   .replace("%1", QByteArray::number(core + 1));
    }
    bool first = true;
    for (int core = 0; core < 2; ++core) {
        double ts = 1000;
        for (int i = 0; i < perCore; ++i) {
            const QByteArray name = "fusion." + QByteArray::number(i % 37);
            if (!first)
                out += ",\n";
            first = false;
            out += "{\"ph\":\"X\",\"pid\":" + QByteArray::number(core + 1) + ",\"tid\":1,\"ts\":"
                + QByteArray::number(ts, 'f', 3) + ",\"dur\":" + QByteArray::number(2.5 + i % 7, 'f', 3)
                + ",\"name\":\"" + name + "\",\"args\":{\"long_name\":\"" + name
                + " = f32[128,1024]{1,0} fusion(p0)\",\"flops\":\"" + QByteArray::number(1000 + i) + "\"}}";
            ts += 3 + i % 7;
        }
    }
    out += "\n]}\n";
    return out;
}

struct BenchProcess
{
    int exitCode = -1;
    QByteArray out, err;
};

BenchProcess runBench(const QStringList& args)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(TPUSCOPE_GUI_PATH), args);
    BenchProcess run;
    if (!process.waitForFinished(180'000)) {
        process.kill();
        process.waitForFinished();
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

TEST(BenchMode, PrintsOneCompleteJsonLine)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("tiny.json"));
    const QByteArray trace = tinyTrace(600);
    {
        QFile file(path);
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        ASSERT_EQ(file.write(trace), trace.size());
    }
    const BenchProcess run
        = runBench({QStringLiteral("--bench-load"), path, QStringLiteral("--bench-steps"), QStringLiteral("8")});
    ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
    const QList<QByteArray> lines = run.out.trimmed().split('\n');
    ASSERT_EQ(lines.size(), 1) << run.out.toStdString();
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(lines.first(), &error);
    ASSERT_TRUE(doc.isObject()) << error.errorString().toStdString() << ": " << lines.first().toStdString();
    const QJsonObject o = doc.object();

    const char* numeric[] = {"events", "file_bytes", "decoded_bytes", "main_steady_ns", "open_s", "open_to_model_s",
        "load_s", "model_ready_s", "views_ready_s", "first_frame_s", "first_paint_s", "first_timeline_paint_ms",
        "loading_frames", "advice_ready_s", "baseline_rss_mb", "resident_bytes", "peak_bytes", "resident_b_per_event",
        "peak_b_per_event", "peak_minus_resident_mb", "rss_end_mb", "steps", "frames", "noop_steps", "missed_frames",
        "frame_p50_ms", "frame_p95_ms", "frame_max_ms", "zoom_frame_p95_ms", "pan_frame_p95_ms", "paint_p50_ms",
        "paint_p95_ms", "paint_max_ms", "input_p50_ms", "input_p95_ms", "interval_p50_ms", "interval_p95_ms",
        "breakdown_s", "advice_s", "op_table_s", "op_model_s", "advice_items", "window_width", "window_height",
        "timeline_width", "timeline_height"};
    for (const char* key : numeric)
        EXPECT_TRUE(o.value(QLatin1String(key)).isDouble()) << key << " missing or not a number";
    // Null when the load was too quick for a partial profile to be shown.
    EXPECT_TRUE(o.contains(QLatin1String("first_preview_s")));
    for (const char* key : {"first_preview_events", "preview_frames", "first_events_s"})
        EXPECT_TRUE(o.value(QLatin1String(key)).isDouble()) << key << " missing or not a number";
    for (const char* key : {"bench", "file", "format", "platform"})
        EXPECT_TRUE(o.value(QLatin1String(key)).isString()) << key << " missing or not a string";
    auto num = [&](const char* key) { return o.value(QLatin1String(key)).toDouble(-1); };

    EXPECT_EQ(o.value(QLatin1String("format")).toString(), QStringLiteral("chrome-json"));
    EXPECT_EQ(o.value(QLatin1String("platform")).toString(), QStringLiteral("offscreen"));
    EXPECT_EQ(num("events"), 1200);
    EXPECT_EQ(num("file_bytes"), trace.size());
    EXPECT_EQ(num("decoded_bytes"), trace.size());
    // Load times: open_to_model runs from the open call, the others from main().
    EXPECT_GT(num("open_to_model_s"), 0);
    EXPECT_GE(num("open_to_model_s"), num("load_s"));
    EXPECT_GE(num("model_ready_s"), num("open_to_model_s"));
    EXPECT_NEAR(num("model_ready_s"), num("open_s") + num("open_to_model_s"), 1e-3);
    EXPECT_GE(num("views_ready_s"), num("model_ready_s"));
    EXPECT_GE(num("first_paint_s"), num("views_ready_s"));
    EXPECT_GT(num("first_frame_s"), 0);
    EXPECT_LE(num("first_frame_s"), num("first_paint_s"));
    EXPECT_GT(num("first_timeline_paint_ms"), 0);
    EXPECT_GT(num("first_events_s"), 0);
    EXPECT_LE(num("first_events_s"), num("first_paint_s"));
    EXPECT_LT(num("first_paint_s"), 120);
    // Memory: the peak is at least what stayed.
    EXPECT_GE(num("peak_bytes"), num("resident_bytes"));
    EXPECT_GE(num("peak_minus_resident_mb"), 0);
    EXPECT_GT(num("baseline_rss_mb"), 1);
    // The scripted 8 zoom + 8 pan steps each produced a frame.
    EXPECT_EQ(num("steps"), 16);
    EXPECT_EQ(num("frames") + num("noop_steps") + num("missed_frames"), 16);
    EXPECT_GE(num("frames"), 12);
    EXPECT_EQ(num("missed_frames"), 0);
    EXPECT_GT(num("frame_p50_ms"), 0);
    EXPECT_GE(num("frame_p95_ms"), num("frame_p50_ms"));
    EXPECT_GE(num("frame_max_ms"), num("frame_p95_ms"));
    EXPECT_GT(num("paint_p50_ms"), 0);
    EXPECT_GE(num("paint_p95_ms"), num("paint_p50_ms"));
    // A frame includes its timeline paint.
    EXPECT_GE(num("frame_max_ms"), num("paint_p50_ms"));
    EXPECT_GT(num("op_table_s"), 0);
    EXPECT_NEAR(num("op_table_s"), num("breakdown_s") + num("advice_s"), 2e-4);
    EXPECT_EQ(num("window_width"), 1600);
    EXPECT_EQ(num("window_height"), 900);
    EXPECT_GT(num("timeline_width"), 100);
}

TEST(BenchMode, FailsClearlyOnAMissingFile)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const BenchProcess run = runBench({QStringLiteral("--bench-load"), dir.filePath(QStringLiteral("missing.pb"))});
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_TRUE(run.out.trimmed().isEmpty()) << run.out.toStdString();
    EXPECT_TRUE(run.err.contains("cannot open")) << run.err.toStdString();
}

TEST(BenchMode, RejectsBadArguments)
{
    const BenchProcess run = runBench({QStringLiteral("--bench-load"), QStringLiteral("x.pb"),
        QStringLiteral("--bench-steps"), QStringLiteral("zero")});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.err.contains("--bench-steps")) << run.err.toStdString();
}

} // namespace
