// Report files (report_file.h, run_outputs.h): a path that is not a regular file is written
// into, a symbolic link is written through, a temporary file never takes the name of a file
// that is there and never stays behind, two flags cannot name one file, and when one report
// file cannot be written every file that is says the exit code and error the process ends with.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "orchestrator/report/report_file.h"
#include "orchestrator/report/run_outputs.h"

namespace benchgate::report {
namespace {
namespace fs = std::filesystem;

class ReportFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "benchgate-report-file-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string path(const std::string& name) const { return (fs::path(dir_) / name).string(); }

  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  static void put(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  // The names in the folder, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      found.push_back(entry.path().filename().string());
    }
    std::sort(found.begin(), found.end());
    return found;
  }

  std::string dir_;
};

TEST_F(ReportFileTest, AFifoIsWrittenIntoNotReplaced) {
  const std::string fifo = path("summary");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A reader first, so that opening the FIFO for writing does not wait; non-blocking, so that
  // a writer that never writes into it fails the test instead of hanging it.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  auto written = write_report_file(fifo, "# summary\n");
  ASSERT_TRUE(written) << written.message();
  char buffer[64] = {};
  const ssize_t n = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0), "# summary\n");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  EXPECT_EQ(names(), std::vector<std::string>{"summary"});
}

TEST_F(ReportFileTest, DevFdIsWrittenIntoTheOpenFileAddingToWhatItHolds) {
  // /dev/stdout is /dev/fd/1, a link into /proc: what it names is an open pipe or file, here
  // a pipe and a file opened for appending (`>> out`).
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  auto written = write_report_file("/dev/fd/" + std::to_string(pipe_fds[1]), "{}\n");
  EXPECT_TRUE(written) << written.message();
  ::close(pipe_fds[1]);
  char buffer[16] = {};
  const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
  ::close(pipe_fds[0]);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0), "{}\n");

  const std::string out = path("out");
  put(out, "the run's tables\n");
  const int fd = ::open(out.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  written = write_report_file("/proc/self/fd/" + std::to_string(fd), "{}\n");
  ::close(fd);
  EXPECT_TRUE(written) << written.message();
  EXPECT_EQ(read(out), "the run's tables\n{}\n");
  EXPECT_EQ(names(), std::vector<std::string>{"out"});
}

TEST_F(ReportFileTest, ALinkIsWrittenThroughAndKept) {
  fs::create_directory(path("real"));
  put(path("real/report.json"), "old");
  fs::create_symlink("real/report.json", path("link.json"));
  fs::create_symlink("link.json", path("link2.json"));  // a chain of links
  auto written = write_report_file(path("link2.json"), "new");
  ASSERT_TRUE(written) << written.message();
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_TRUE(fs::is_symlink(path("link2.json")));
  EXPECT_EQ(read(path("real/report.json")), "new");
  EXPECT_EQ(names(), (std::vector<std::string>{"link.json", "link2.json", "real"}));
  EXPECT_EQ(fs::directory_iterator(path("real"))->path().filename(), "report.json");

  // A link to a file not there yet makes it where the link points.
  fs::create_symlink("real/later.xml", path("later.xml"));
  written = write_report_file(path("later.xml"), "<x/>");
  ASSERT_TRUE(written) << written.message();
  EXPECT_TRUE(fs::is_symlink(path("later.xml")));
  EXPECT_EQ(read(path("real/later.xml")), "<x/>");
}

// A folder such as the system temporary folder: sticky, anyone may write. Someone else's link there
// is not followed (the kernel's fs.protected_symlinks rule, whatever that setting says): the file
// it points at is left as it is, and nothing is made beside it. The caller's own link, or one of
// the folder's owner, is followed.
TEST_F(ReportFileTest, SomeoneElsesLinkInASharedStickyFolderIsNotFollowed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to give a link to another user";
  const uid_t nobody = 65534;
  const std::string shared = path("shared");
  ASSERT_EQ(::mkdir(shared.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  put(path("secret"), "keep");
  fs::create_symlink(path("secret"), shared + "/report.json");
  ASSERT_EQ(::lchown((shared + "/report.json").c_str(), nobody, nobody), 0);
  auto written = write_report_file(shared + "/report.json", "new");
  ASSERT_FALSE(written);
  EXPECT_NE(written.message().find("is not followed"), std::string::npos) << written.message();
  auto checked = check_output_path("--json", shared + "/report.json");
  ASSERT_FALSE(checked);
  EXPECT_NE(checked.message().find("is not followed"), std::string::npos) << checked.message();
  // Nor as a folder on the way.
  fs::create_directory(path("real"));
  fs::create_symlink(path("real"), shared + "/dir");
  ASSERT_EQ(::lchown((shared + "/dir").c_str(), nobody, nobody), 0);
  EXPECT_FALSE(write_report_file(shared + "/dir/out.json", "new"));
  // A FIFO, a device, any stream alike.
  fs::create_symlink("/dev/null", shared + "/null");
  ASSERT_EQ(::lchown((shared + "/null").c_str(), nobody, nobody), 0);
  EXPECT_FALSE(write_report_file(shared + "/null", "new"));
  EXPECT_EQ(read(path("secret")), "keep");
  EXPECT_TRUE(fs::is_empty(path("real")));
  EXPECT_TRUE(fs::is_symlink(shared + "/report.json"));

  // The caller's own link is followed: the file it points at replaced, the link kept.
  fs::create_symlink(path("secret"), shared + "/mine.json");
  written = write_report_file(shared + "/mine.json", "mine");
  ASSERT_TRUE(written) << written.message();
  EXPECT_EQ(read(path("secret")), "mine");
  EXPECT_TRUE(fs::is_symlink(shared + "/mine.json"));
  // And so is the folder owner's.
  ASSERT_EQ(::chown(shared.c_str(), nobody, nobody), 0);
  written = write_report_file(shared + "/report.json", "owner's");
  ASSERT_TRUE(written) << written.message();
  EXPECT_EQ(read(path("secret")), "owner's");
  EXPECT_EQ(names(), (std::vector<std::string>{"real", "secret", "shared"}));
}

// The temporary file is made and renamed in the folder that was checked, held open: a folder
// swapped for a link after the check does not send the report elsewhere.
TEST_F(ReportFileTest, TheFolderCheckedIsTheFolderWritten) {
  fs::create_directory(path("a"));
  fs::create_directory(path("elsewhere"));
  auto staged = StagedReport::stage(path("a/r.json"), "new");
  ASSERT_TRUE(staged) << staged.message();
  fs::rename(path("a"), path("b"));
  fs::create_symlink(path("elsewhere"), path("a"));
  auto put_in_place = staged->commit();
  ASSERT_TRUE(put_in_place) << put_in_place.message();
  EXPECT_EQ(read(path("b/r.json")), "new");
  EXPECT_TRUE(fs::is_empty(path("elsewhere")));
  EXPECT_EQ(fs::directory_iterator(path("b"))->path().filename(), "r.json");
}

// /dev/stdout when standard output is a file (`> out.txt`): the report goes in at descriptor
// 1's own offset, so what the process prints after it follows it instead of writing over it.
TEST_F(ReportFileTest, StdoutRedirectedToAFileHoldsTheReportAndWhatFollowsInOrder) {
  const std::string out = path("out.txt");
  // The system's link into /proc: were it a plain file, the report would replace it.
  ASSERT_TRUE(fs::is_symlink("/dev/stdout"));
  std::fflush(stdout);
  const int saved = ::dup(1);
  ASSERT_GE(saved, 0);
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ::dup2(fd, 1);
  ::close(fd);
  std::printf("the tables\n");
  auto written = write_report_file("/dev/stdout", "# report\n");
  auto again = write_report_file("/dev/fd/1", "{}\n");
  std::printf("promoted run 7 to baseline main\n");
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  EXPECT_TRUE(written) << written.message();
  EXPECT_TRUE(again) << again.message();
  EXPECT_EQ(read(out), "the tables\n# report\n{}\npromoted run 7 to baseline main\n");
}

// A FIFO no process reads: an error at once, not a wait without end (a child process, killed
// by an alarm if it waits).
TEST_F(ReportFileTest, AFifoNobodyReadsIsAnErrorNotAHang) {
  const std::string fifo = path("summary");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::alarm(10);
    auto written = write_report_file(fifo, "# summary\n");
    const bool said = !written && written.message() == "cannot write '" + fifo +
                                                           "': no process is reading FIFO " + fifo;
    if (!said) std::fprintf(stderr, "%s\n", written ? "written" : written.message().c_str());
    ::_exit(said ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

TEST_F(ReportFileTest, AFileNamedLikeATemporaryIsLeftAlone) {
  put(path("g.xml.tmp"), "someone's");
  auto written = write_report_file(path("g.xml"), "<x/>");
  ASSERT_TRUE(written) << written.message();
  EXPECT_EQ(read(path("g.xml.tmp")), "someone's");
  EXPECT_EQ(read(path("g.xml")), "<x/>");
  EXPECT_EQ(names(), (std::vector<std::string>{"g.xml", "g.xml.tmp"}));
}

TEST_F(ReportFileTest, AReplacedFileKeepsItsPermissions) {
  put(path("r.json"), "old");
  ASSERT_EQ(::chmod(path("r.json").c_str(), 0640), 0);
  ASSERT_TRUE(write_report_file(path("r.json"), "new"));
  struct stat st {};
  ASSERT_EQ(::stat(path("r.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

// The file size limit makes a write fail as a full file system does, without one.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    previous_ = std::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of the signal
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previous_);
  }

 private:
  rlimit saved_{};
  void (*previous_)(int) = nullptr;
};

TEST_F(ReportFileTest, AFailedWriteLeavesNoTemporaryFileAndTheOldFileWhole) {
  put(path("g.xml"), "old");
  {
    FileSizeLimit limit(16);
    auto written = write_report_file(path("g.xml"), std::string(4096, 'x'));
    ASSERT_FALSE(written);
    EXPECT_NE(written.message().find("cannot write '" + path("g.xml") + "': "), std::string::npos)
        << written.message();
  }
  EXPECT_EQ(read(path("g.xml")), "old");
  EXPECT_EQ(names(), std::vector<std::string>{"g.xml"});
}

TEST_F(ReportFileTest, TwoFlagsNamingOneFileAreRefused) {
  const std::string x = path("x");
  auto same = check_output_paths({x, x, "", ""});
  ASSERT_FALSE(same);
  EXPECT_EQ(same.message(), "--json " + x + " and --junit " + x +
                                " name the same file; each report needs a file of its own");
  // Spelled another way, or through a link, it is the same file.
  fs::create_directory(path("sub"));
  auto dotted = check_output_paths({"", path("x"), "", dir_ + "/./sub/../x"});
  ASSERT_FALSE(dotted);
  EXPECT_EQ(dotted.message(), "--junit " + x + " and --html " + dir_ +
                                  "/./sub/../x name the same file; each report needs a file "
                                  "of its own");
  fs::create_symlink("x", path("link"));
  EXPECT_FALSE(check_output_paths({x, "", path("link"), ""}));
  put(x, "there");
  EXPECT_FALSE(check_output_paths({x, "", path("link"), ""}));
  EXPECT_TRUE(check_output_paths({x, path("y"), path("z"), path("w")}));
  EXPECT_EQ(names(), (std::vector<std::string>{"link", "sub", "x"}));
}

TEST_F(ReportFileTest, ALinkIsCheckedWhereItLeads) {
  fs::create_symlink("missing/out.json", path("link.json"));
  auto checked = check_output_path("--json", path("link.json"));
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.message(),
            "--json " + path("link.json") + ": folder '" + path("missing") +
                "' does not exist (where the link leads: " + path("missing/out.json") + ")");
  const std::string fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(check_output_path("--markdown", fifo));
}

ScenarioReport stored_run(int64_t id) {
  ScenarioReport r;
  r.run_id = id;
  r.result.scenario = "s" + std::to_string(id);
  return r;
}

TEST_F(ReportFileTest, WhenOneFileCannotBeWrittenTheOthersSayExitCode3AndWhy) {
  // --json's folder is gone by the end of the run: JUnit and Markdown say what the process
  // (exit code 3) and the store (runs.error) say, not the exit code 0 the run had before.
  const OutputPaths paths{path("gone/run.json"), path("run.xml"), path("run.md"), ""};
  EXPECT_FALSE(write_report_files(paths, {stored_run(7)}, 0));
  EXPECT_NE(read(path("run.xml")).find("the report files could not be written"), std::string::npos)
      << read(path("run.xml"));
  EXPECT_NE(read(path("run.md")).find("the report files could not be written"), std::string::npos)
      << read(path("run.md"));
  EXPECT_EQ(names(), (std::vector<std::string>{"run.md", "run.xml"}));

  // And the JSON, when another file fails.
  const OutputPaths json_ok{path("run.json"), path("gone/run.xml"), "", ""};
  EXPECT_FALSE(write_report_files(json_ok, {stored_run(7)}, 0));
  const std::string json = read(path("run.json"));
  EXPECT_NE(json.find("\"error\": \"the report files could not be written\""), std::string::npos)
      << json;
  EXPECT_EQ(json.find("\"exit_code\": 0"), std::string::npos) << json;
}

TEST_F(ReportFileTest, AllFilesWrittenSayTheFirstOutcome) {
  const OutputPaths paths{path("run.json"), path("run.xml"), path("run.md"), path("run.html")};
  int renders = 0;
  bool failed = false;
  EXPECT_TRUE(write_outputs(
      paths,
      [&] {
        ++renders;
        return OutputTexts{"j", "x", "m", "h", {}};
      },
      [&] { failed = true; }));
  EXPECT_EQ(renders, 1);
  EXPECT_FALSE(failed);
  EXPECT_EQ(read(path("run.json")) + read(path("run.xml")) + read(path("run.md")) +
                read(path("run.html")),
            "jxmh");
  EXPECT_EQ(names(), (std::vector<std::string>{"run.html", "run.json", "run.md", "run.xml"}));
}

TEST_F(ReportFileTest, AFailureFoundLastStillReachesEveryFile) {
  // An HTML page whose run could not be read (an error of the render), and a stream that fails
  // after the files were renamed into place (a pipe nobody reads): every file says the outcome
  // the failure made.
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ::close(pipe_fds[0]);
  auto previous = std::signal(SIGPIPE, SIG_IGN);
  const OutputPaths paths{path("run.json"), path("run.xml"),
                          "/dev/fd/" + std::to_string(pipe_fds[1]), ""};
  std::string outcome = "0";
  EXPECT_FALSE(write_outputs(
      paths,
      [&] {
        return OutputTexts{"j" + outcome, "x" + outcome, "m" + outcome, "", {}};
      },
      [&] { outcome = "3"; }));
  std::signal(SIGPIPE, previous);
  ::close(pipe_fds[1]);
  EXPECT_EQ(read(path("run.json")), "j3");
  EXPECT_EQ(read(path("run.xml")), "x3");

  outcome = "0";
  int failures = 0;
  EXPECT_FALSE(write_outputs(
      {path("a.json"), "", "", path("a.html")},
      [&] {
        return OutputTexts{"j" + outcome, "", "", "h" + outcome, {"--html: run 9 does not exist"}};
      },
      [&] {
        ++failures;
        outcome = "3";
      }));
  EXPECT_EQ(failures, 1);
  EXPECT_EQ(read(path("a.json")) + read(path("a.html")), "j3h3");
  EXPECT_EQ(names(), (std::vector<std::string>{"a.html", "a.json", "run.json", "run.xml"}));
}

// The temporary file is made readable by its owner alone and given the target's mode only when
// it is renamed onto it: nobody else can open it while it holds the text, even where the
// target's mode lets them read it.
TEST_F(ReportFileTest, TheTemporaryFileIsTheOwnersAloneUntilItIsRenamed) {
  const mode_t saved = ::umask(022);
  put(path("r.json"), "old");
  ASSERT_EQ(::chmod(path("r.json").c_str(), 0640), 0);
  auto replaced = StagedReport::stage(path("r.json"), "new");
  auto created = StagedReport::stage(path("n.json"), "new");
  ::umask(saved);
  ASSERT_TRUE(replaced) << replaced.message();
  ASSERT_TRUE(created) << created.message();
  int temporaries = 0;
  for (const auto& name : names()) {
    if (name.front() != '.') continue;
    ++temporaries;
    struct stat st {};
    ASSERT_EQ(::lstat(path(name).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u) << name;
  }
  EXPECT_EQ(temporaries, 2);
  ASSERT_TRUE(replaced->commit());
  ASSERT_TRUE(created->commit());
  struct stat st {};
  ASSERT_EQ(::stat(path("r.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  ASSERT_EQ(::stat(path("n.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(read(path("n.json")), "new");
  EXPECT_EQ(names(), (std::vector<std::string>{"n.json", "r.json"}));
}

// In a sticky folder anyone may write, a FIFO or device of someone else's (neither this user's
// nor the folder owner's) is not written into (the kernel's fs.protected_fifos rule, which an
// open without O_CREAT escapes), and a file of someone else's that is replaced is not given to
// them: the new file is the caller's.
TEST_F(ReportFileTest, SomeoneElsesFifoInASharedStickyFolderIsRefusedAndTheirFileNotGivenBack) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to give files to another user";
  const uid_t nobody = 65534;
  const std::string shared = path("shared");
  ASSERT_EQ(::mkdir(shared.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  const std::string fifo = shared + "/summary";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  ASSERT_EQ(::chown(fifo.c_str(), nobody, nobody), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const std::string said = "the FIFO '" + fifo + "' is in a sticky folder anyone may write ('" +
                           shared +
                           "') and belongs neither to this user nor to the folder's owner; it "
                           "is not written into";
  auto written = write_report_file(fifo, "# summary\n");
  auto checked = check_output_path("--markdown", fifo);
  char buffer[16] = {};
  const ssize_t n = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  EXPECT_LE(n, 0) << "written into";
  ASSERT_FALSE(written);
  EXPECT_EQ(written.message(), "cannot write '" + fifo + "': " + said);
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.message(), "--markdown " + fifo + ": " + said);
  // A device alike (one like /dev/null, made here).
  const std::string device = shared + "/null";
  if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    ASSERT_EQ(::chown(device.c_str(), nobody, nobody), 0);
    EXPECT_FALSE(report_target(device));
    EXPECT_FALSE(check_output_path("--json", device));
  }
  // The folder owner's FIFO is written into.
  ASSERT_EQ(::chown(shared.c_str(), nobody, nobody), 0);
  EXPECT_TRUE(check_output_path("--markdown", fifo));
  ASSERT_EQ(::chown(shared.c_str(), 0, 0), 0);

  // Someone else's file, replaced: the new file is root's, not theirs.
  const std::string file = shared + "/r.json";
  put(file, "old");
  ASSERT_EQ(::chown(file.c_str(), nobody, nobody), 0);
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  written = write_report_file(file, "new");
  ASSERT_TRUE(written) << written.message();
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(read(file), "new");
  // The folder owner's keeps its owner.
  ASSERT_EQ(::chown(shared.c_str(), nobody, nobody), 0);
  ASSERT_EQ(::chown(file.c_str(), nobody, nobody), 0);
  written = write_report_file(file, "newer");
  ASSERT_TRUE(written) << written.message();
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, nobody);
}

// /dev/stderr, /dev/fd/2 and /proc/self/fd/2 are descriptor 2, even when descriptor 1 is the
// same file: standard output and error sent to one file through two opens of it (`> a 2> a`),
// each at its own offset. The report goes in at descriptor 2's.
TEST_F(ReportFileTest, StderrIsWrittenThroughDescriptor2WhenStdoutIsTheSameFile) {
  const std::string out = path("both.txt");
  put(out, "");
  std::fflush(nullptr);
  const int saved_out = ::dup(1);
  const int saved_err = ::dup(2);
  ASSERT_GE(saved_out, 0);
  ASSERT_GE(saved_err, 0);
  const int a = ::open(out.c_str(), O_WRONLY);
  const int b = ::open(out.c_str(), O_WRONLY);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  ::dup2(a, 1);
  ::dup2(b, 2);
  ::close(a);
  ::close(b);
  auto written = write_report_file("/dev/stderr", "12345\n");
  const off_t out_after_one = ::lseek(1, 0, SEEK_CUR);
  const off_t err_after_one = ::lseek(2, 0, SEEK_CUR);
  auto again = write_report_file("/dev/fd/2", "6789\n");
  auto third = write_report_file("/proc/self/fd/2", "ab\n");
  auto to_stdout = write_report_file("/dev/stdout", "c\n");
  const off_t out_after = ::lseek(1, 0, SEEK_CUR);
  const off_t err_after = ::lseek(2, 0, SEEK_CUR);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  ::close(saved_out);
  ::close(saved_err);
  EXPECT_TRUE(written) << written.message();
  EXPECT_TRUE(again) << again.message();
  EXPECT_TRUE(third) << third.message();
  EXPECT_TRUE(to_stdout) << to_stdout.message();
  EXPECT_EQ(out_after_one, 0);
  EXPECT_EQ(err_after_one, 6);
  EXPECT_EQ(err_after, 14);
  EXPECT_EQ(out_after, 2);
  // Descriptor 1's "c\n" went over descriptor 2's first bytes, as two opens of one file do.
  EXPECT_EQ(read(out), "c\n345\n6789\nab\n");
}

}  // namespace
}  // namespace benchgate::report
