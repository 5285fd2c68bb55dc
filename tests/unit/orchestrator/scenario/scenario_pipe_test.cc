// A scenario read from a pipe: `orchestrator validate <(generate)` names /dev/fd/63, `run
// /dev/stdin < pipe` the shell's pipe, and a named pipe (mkfifo) is one too. The reader
// (read_file_or_pipe, common/util/regular_file.h) reads it once, to its end, at most the cap,
// and never waits for ever: no byte for the idle timeout is an error. The timeouts here are
// short and injected; nothing is judged by how long a read took.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include "common/util/regular_file.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using std::chrono::milliseconds;

// Writes all of `text` to `fd` (blocking), then closes it unless told not to.
void write_all(int fd, const std::string& text, bool close_it = true) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  if (close_it) ::close(fd);
}

class PipeReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::pipe2(ends_, O_CLOEXEC), 0);
    std::string pattern = ::testing::TempDir() + "scenario_pipe_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    // The read end first: a writer still blocked (a read that gave up early) fails with EPIPE.
    close_end(0);
    if (writer_.joinable()) writer_.join();
    close_end(1);
    std::filesystem::remove_all(dir_);
  }
  void close_end(int which) {
    if (ends_[which] >= 0) ::close(ends_[which]);
    ends_[which] = -1;
  }
  // The read end by the name `<(generate)` gives it.
  std::string reader_path() const { return "/dev/fd/" + std::to_string(ends_[0]); }
  // `text` written on another thread (a pipe holds 64 KiB; more blocks until it is read), the
  // write end closed after it unless `keep_open`.
  void write_then_close(std::string text, bool keep_open = false) {
    const int fd = ends_[1];
    if (!keep_open) ends_[1] = -1;
    writer_ = std::thread([fd, text = std::move(text), keep_open] {
      // EPIPE rather than SIGPIPE when the reader is gone (left pending on this thread only).
      sigset_t pipe_signal;
      sigemptyset(&pipe_signal);
      sigaddset(&pipe_signal, SIGPIPE);
      ::pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
      write_all(fd, text, !keep_open);
    });
  }

  int ends_[2] = {-1, -1};
  std::thread writer_;
  std::string dir_;
};

TEST_F(PipeReadTest, APipeIsReadToItsEndOnce) {
  // Past a pipe's 64 KiB, so that the reader waits for the writer more than once.
  std::string text;
  while (text.size() < 300000) text += "# line " + std::to_string(text.size()) + "\n";
  write_then_close(text);
  auto read = read_file_or_pipe(reader_path(), "scenario", 1 << 20, milliseconds(60000));
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_TRUE(read->from_pipe);
  EXPECT_EQ(read->text, text);
}

TEST_F(PipeReadTest, APipeClosedWithoutAByteIsEmpty) {
  close_end(1);
  auto read = read_file_or_pipe(reader_path(), "scenario", 100, milliseconds(60000));
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_TRUE(read->from_pipe);
  EXPECT_EQ(read->text, "");
}

// The writer wrote part of it and then neither wrote nor closed: an error after the idle time,
// not a wait for ever, and not the part taken for the whole.
TEST_F(PipeReadTest, AWriterThatStallsWithoutClosingEndsInAnError) {
  write_then_close("name = \"half", true);
  auto read = read_file_or_pipe(reader_path(), "scenario", 100, milliseconds(50));
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(read.message(),
            "scenario: no data from the pipe for 50ms, and its writer has not closed it");
}

TEST_F(PipeReadTest, AWriterThatNeverWritesEndsInAnError) {
  // The write end is open here and nothing is written.
  auto read = read_file_or_pipe(reader_path(), "", 100, milliseconds(1000));
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.message(), "no data from the pipe for 1s, and its writer has not closed it");
}

TEST_F(PipeReadTest, MoreThanTheCapIsRefusedAndTheCapItselfIsRead) {
  write_then_close(std::string(1000, '#'));
  auto at_cap = read_file_or_pipe(reader_path(), "scenario", 1000, milliseconds(60000));
  ASSERT_TRUE(at_cap.ok()) << at_cap.message();
  EXPECT_EQ(at_cap->text.size(), 1000u);
  writer_.join();
  close_end(0);
  ASSERT_EQ(::pipe2(ends_, O_CLOEXEC), 0);
  write_then_close(std::string(5000, '#'));
  auto over = read_file_or_pipe(reader_path(), "scenario", 1000, milliseconds(60000));
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(over.message(), "scenario is larger than 1000 bytes, the most it may hold");
}

void ignore_signal(int) {}

// Ctrl-C while the read waits (the orchestrator catches SIGINT without SA_RESTART): the wait
// ends at once with "interrupted", instead of going on for the idle timeout. The signal is sent
// again until the read returns, so that one landing before the wait began does not matter.
TEST_F(PipeReadTest, ACaughtSignalEndsTheWait) {
  struct sigaction action {
  }, previous{};
  action.sa_handler = ignore_signal;
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(::sigaction(SIGUSR1, &action, &previous), 0);
  std::promise<pthread_t> reader_thread;
  auto reading = std::async(std::launch::async, [&] {
    reader_thread.set_value(::pthread_self());
    return read_file_or_pipe(reader_path(), "scenario", 100, milliseconds(600000));
  });
  const pthread_t reader = reader_thread.get_future().get();
  while (reading.wait_for(milliseconds(20)) != std::future_status::ready) {
    ::pthread_kill(reader, SIGUSR1);
  }
  auto read = reading.get();
  ::sigaction(SIGUSR1, &previous, nullptr);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kInterrupted);
  EXPECT_EQ(read.message(), "scenario: interrupted while waiting for the pipe");
}

// A stop flag raised before the wait began (Ctrl-C's handler only sets a flag, and the signal
// can land between open() and poll()): the read ends "interrupted" at once instead of waiting
// the whole idle timeout for a signal that already came. Before, a once-sent Ctrl-C landing
// there was lost (CI saw `validate a.toml b.toml` wait out both named pipes and exit 2).
TEST_F(PipeReadTest, AStopFlagRaisedBeforeTheWaitEndsItAtOnce) {
  auto read =
      read_file_or_pipe(reader_path(), "scenario", 100, milliseconds(600000), [] { return true; });
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kInterrupted);
  EXPECT_EQ(read.message(), "scenario: interrupted while waiting for the pipe");
}

// A stop flag raised while the read waits, with no signal at all: the wait asks the flag
// between its slices and ends "interrupted".
TEST_F(PipeReadTest, AStopFlagRaisedDuringTheWaitEndsIt) {
  std::atomic<bool> stop{false};
  auto reading = std::async(std::launch::async, [&] {
    return read_file_or_pipe(reader_path(), "scenario", 100, milliseconds(600000),
                             [&stop] { return stop.load(); });
  });
  // Raised well after the wait began, so that the wait must ask the flag between its slices
  // (one long poll() would run out the 10 minutes, past ctest's timeout).
  std::this_thread::sleep_for(milliseconds(200));
  stop = true;
  auto read = reading.get();
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kInterrupted);
}

// The flag, asked throughout, changes nothing for a pipe whose writer writes and closes it.
TEST_F(PipeReadTest, AStopFlagThatStaysDownReadsThePipeToItsEnd) {
  write_then_close("name = \"s\"\n");
  auto read =
      read_file_or_pipe(reader_path(), "scenario", 100, milliseconds(600000), [] { return false; });
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(read->text, "name = \"s\"\n");
}

// A named pipe nobody opened for writing: read() would say "end of file" at once, and the
// scenario would be taken for an empty one. It waits for a writer, bounded.
TEST_F(PipeReadTest, ANamedPipeWithoutAWriterEndsInAnError) {
  const std::string fifo = dir_ + "/s.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto read = read_file_or_pipe(fifo, "", 100, milliseconds(50));
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.message(), "no data from the pipe for 50ms, and its writer has not closed it");
}

TEST_F(PipeReadTest, ANamedPipeIsReadWhenItsWriterComesLater) {
  const std::string fifo = dir_ + "/s.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::atomic<bool> done{false};
  writer_ = std::thread([fifo, &done] {
    // Opens once the reader has its end open (before, ENXIO); gives up when the read is over,
    // so that a read that did not wait leaves no writer blocked.
    while (!done.load()) {
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0) {
        ::fcntl(fd, F_SETFL, 0);
        write_all(fd, "name = \"late\"\n");
        return;
      }
      std::this_thread::sleep_for(milliseconds(1));
    }
  });
  auto read = read_file_or_pipe(fifo, "", 100, milliseconds(60000));
  done = true;
  writer_.join();
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(read->text, "name = \"late\"\n");
}

// Devices stay refused: /dev/zero never ends, and /dev/null is no scenario either.
TEST_F(PipeReadTest, DevicesAndFoldersAreRefusedBeforeTheyAreRead) {
  for (const char* device : {"/dev/zero", "/dev/null"}) {
    auto read = read_file_or_pipe(device, "", 100, milliseconds(60000));
    ASSERT_FALSE(read.ok()) << device;
    EXPECT_EQ(read.message(), "is a character device, not a regular file") << device;
  }
  auto folder = read_file_or_pipe(dir_, "", 100, milliseconds(60000));
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.message(), "is a folder, not a regular file");
}

TEST_F(PipeReadTest, ARegularFileIsReadAsBefore) {
  const std::string path = dir_ + "/s.toml";
  std::ofstream(path, std::ios::binary) << "name = \"s\"\n";
  auto read = read_file_or_pipe(path, "", 100, milliseconds(60000));
  ASSERT_TRUE(read.ok()) << read.message();
  EXPECT_FALSE(read->from_pipe);
  EXPECT_EQ(read->text, "name = \"s\"\n");
}

// What `validate <(generate)` and `run /dev/stdin` get from the loader: the text, once, kept
// as the Scenario's text (what a run stores), under the name given.
TEST_F(PipeReadTest, TheLoaderReadsAScenarioFromAPipe) {
  const std::string text = "name = \"piped\"\n[[workloads]]\nname = \"w\"\n";
  write_then_close(text);
  LoadResult r = load_scenario_file(reader_path(), test_support::hermetic_options());
  ASSERT_TRUE(r.ok()) << test_support::diagnostics_text(r);
  EXPECT_EQ(r.scenario->text, text);
  EXPECT_EQ(r.scenario->path, reader_path());
  EXPECT_EQ(r.scenario->name, "piped");
}

TEST_F(PipeReadTest, TheLoaderSaysWhenAPipeStalls) {
  write_then_close("name = \"piped\"\n", true);
  LoadOptions options = test_support::hermetic_options();
  options.pipe_idle_timeout = milliseconds(50);
  LoadResult r = load_scenario_file(reader_path(), options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(test_support::diagnostics_text(r),
            reader_path() +
                ": error: no data from the pipe for 50ms, and its writer has not closed it\n");
}

// serve reads its scenarios folder for regular files only, judged on the open descriptor: a
// named pipe in a scenario's place (put there after serve looked at the name) is refused at
// once, never waited on for the idle timeout (60 s here: a wait would show).
TEST_F(PipeReadTest, ALoadForRegularFilesOnlyRefusesANamedPipeWithoutWaiting) {
  const std::string fifo = dir_ + "/s.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  LoadOptions options = test_support::hermetic_options();
  options.pipe_idle_timeout = milliseconds(60000);
  options.regular_file_only = true;
  LoadResult r = load_scenario_file(fifo, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(test_support::diagnostics_text(r),
            fifo + ": error: is a FIFO (named pipe), not a regular file\n");
  const std::string path = dir_ + "/r.toml";
  std::ofstream(path, std::ios::binary) << "name = \"r\"\n[[workloads]]\nname = \"w\"\n";
  LoadResult regular = load_scenario_file(path, options);
  ASSERT_TRUE(regular.ok()) << test_support::diagnostics_text(regular);
  EXPECT_EQ(regular.scenario->name, "r");
}

// A scenario from /dev/fd/N has no folder of its own: the files it names are read against the
// working directory, not /dev/fd (before: "read as '/dev/fd/ca.pem'").
TEST_F(PipeReadTest, FilesAScenarioFromAPipeNamesAreReadAgainstTheWorkingDirectory) {
  write_then_close(
      "name = \"piped\"\n[[workloads]]\nname = \"w\"\ntls = true\nca_file = \"no-such-ca.pem\"\n");
  LoadResult r = load_scenario_file(reader_path(), test_support::hermetic_options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(test_support::diagnostics_text(r),
            reader_path() + ":5:11: error: key 'ca_file': no such file 'no-such-ca.pem'\n");
}

}  // namespace
}  // namespace benchgate::scenario
