/* seqfuzz oss-fuzz: an OSS-Fuzz project and a ClusterFuzzLite configuration
 * for a target directory (docs/workflow.md "A target directory"; the files
 * are described in docs/oss-fuzz.md).
 *
 * Nothing is built here. The generated build.sh runs inside OSS-Fuzz's
 * builder image and does what seeds/LIB/build.sh scripts do (seeds/common.sh):
 * the target's own build.sh when it has one, else seqfuzz_fuzzer over the
 * grammar's `header` and `library` lines. The target directory is copied
 * next to the generated files, since Docker can COPY only from there. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* The copy of the target directory, in DIR and in the image's $SRC. */
#define TARGET_COPY "seqfuzz-target"
/* How deep the target directory is copied (a symlink loop stops here). */
#define COPY_DEPTH 16

typedef struct ossfuzz {
  const char *target;   /* TARGET, as given */
  const char *out;      /* DIR */
  const char *language; /* c or c++ */
  char api_file[NAME_MAX + 1];
  char stem[NAME_MAX + 1];    /* the API's name: NAME of NAME.api */
  char fuzzer[NAME_MAX + 16]; /* NAME_seqfuzz (characters OSS-Fuzz accepts) */
  char project[NAME_MAX + 1]; /* OSS-Fuzz project name */
  bool has_build;             /* TARGET/build.sh */
  bool has_dict;              /* TARGET/NAME.dict */
  sf_api *api;
  struct stat out_st; /* DIR, left out when TARGET contains it */
} ossfuzz;

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* path = a "/" b, or -1 (with a message) when it does not fit. */
static int join(char *path, size_t size, const char *a, const char *b) {
  if ((size_t)snprintf(path, size, "%s/%s", a, b) >= size)
    return cli_error("%s/%s: path too long", a, b), -1;
  return 0;
}

/* The one NAME.api of the target directory. */
static int find_api(ossfuzz *o) {
  DIR *d = opendir(o->target);
  if (!d) return cli_error("%s: not a directory: %s", o->target, strerror(errno)), -1;
  int n = 0;
  char path[PATH_MAX];
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!ends_with(e->d_name, ".api") || strlen(e->d_name) == 4) continue;
    if (join(path, sizeof path, o->target, e->d_name) || !is_file(path)) continue;
    if (n++ == 0) snprintf(o->api_file, sizeof o->api_file, "%s", e->d_name);
  }
  closedir(d);
  if (n == 0)
    return cli_error("%s: no .api file (a target directory holds its grammar as NAME.api: "
                     "docs/workflow.md)",
                     o->target),
           -1;
  if (n > 1)
    return cli_error("%s: %d .api files; a target directory holds exactly one", o->target, n), -1;
  snprintf(o->stem, sizeof o->stem, "%.*s", (int)(strlen(o->api_file) - 4), o->api_file);
  return 0;
}

/* Fuzzer binaries may hold only letters, digits, '_' and '-' (OSS-Fuzz). */
static void fuzzer_name(ossfuzz *o) {
  snprintf(o->fuzzer, sizeof o->fuzzer, "%s_seqfuzz", o->stem);
  for (char *p = o->fuzzer; *p; p++)
    if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9') &&
        *p != '-')
      *p = '_';
}

/* OSS-Fuzz project names become Docker image names: lower case. */
static bool project_char(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         (!first && (c == '-' || c == '_' || c == '.'));
}

static bool valid_project(const char *s) {
  if (!*s || strlen(s) > NAME_MAX) return false;
  for (const char *p = s; *p; p++)
    if (!project_char(*p, p == s)) return false;
  return true;
}

/* The default: the API's name, lower case, other characters as '-'. */
static void default_project(ossfuzz *o) {
  const char *s = o->stem;
  size_t n = 0;
  if (!project_char((char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s), true))
    n = (size_t)snprintf(o->project, sizeof o->project, "seqfuzz-");
  for (; *s && n + 1 < sizeof o->project; s++) {
    char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
    o->project[n++] = project_char(c, false) ? c : '-';
  }
  o->project[n] = 0;
}

/* Without a build.sh the generated one links the grammar's libraries as
 * they are, so each must be in the directory (it is copied into the image). */
static int check_libraries(const ossfuzz *o) {
  char path[PATH_MAX];
  for (uint32_t i = 0; i < o->api->nlibraries; i++) {
    const char *lib = o->api->libraries[i];
    if (lib[0] == '-') continue; /* a linker flag (-lm) */
    if (lib[0] == '/' || strstr(lib, ".."))
      return cli_error("%s: library \"%s\": without a build.sh, libraries are named relative to "
                       "the target directory and inside it",
                       o->api_file, lib),
             -1;
    if (!ends_with(lib, ".a") && !strstr(lib, ".so"))
      return cli_error("%s: library \"%s\" is neither a static archive (.a) nor a shared "
                       "library (.so)",
                       o->api_file, lib),
             -1;
    if (join(path, sizeof path, o->target, lib)) return -1;
    if (!is_file(path))
      return cli_error("%s: no library %s (named by %s) and no build.sh to build it", o->target,
                       lib, o->api_file),
             -1;
  }
  return 0;
}

/* Single-quoted for bash. */
static void sh_quote(sf_buf *b, const char *s) {
  sf_buf_putc(b, '\'');
  for (; *s; s++)
    if (*s == '\'')
      sf_buf_printf(b, "'\\''");
    else
      sf_buf_putc(b, (uint8_t)*s);
  sf_buf_putc(b, '\'');
}

static int write_buf(const char *dir, const char *name, sf_buf *b, mode_t mode) {
  char path[PATH_MAX];
  if (join(path, sizeof path, dir, name)) return -1;
  if (cli_write_file(path, b->data, b->len)) return -1;
  if (chmod(path, mode) != 0) return cli_error("%s: chmod: %s", path, strerror(errno)), -1;
  return 0;
}

/* ---- the target directory's copy ---------------------------------------- */

static int copy_file(const char *from, const char *to, mode_t mode) {
  sf_buf b = {0};
  int rc = cli_read_file(from, &b) || cli_write_file(to, b.data, b.len) ? -1 : 0;
  sf_buf_free(&b);
  if (rc == 0 && chmod(to, mode & 0777) != 0)
    return cli_error("%s: chmod: %s", to, strerror(errno)), -1;
  return rc;
}

/* Everything but hidden entries (.git) and DIR itself, following symlinks:
 * a build.sh may use any file of its directory. */
static int copy_tree(const ossfuzz *o, const char *from, const char *to, int depth) {
  if (depth > COPY_DEPTH) return cli_error("%s: directories nested too deep", from), -1;
  if (cli_make_dirs(to)) return -1;
  DIR *d = opendir(from);
  if (!d) return cli_error("%s: cannot read: %s", from, strerror(errno)), -1;
  int rc = 0;
  struct dirent *e;
  char src[PATH_MAX], dst[PATH_MAX];
  while (rc == 0 && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    struct stat st;
    if (join(src, sizeof src, from, e->d_name) || join(dst, sizeof dst, to, e->d_name)) {
      rc = -1;
      break;
    }
    if (stat(src, &st) != 0) continue; /* a dangling symlink */
    if (st.st_dev == o->out_st.st_dev && st.st_ino == o->out_st.st_ino) continue;
    if (S_ISDIR(st.st_mode))
      rc = copy_tree(o, src, dst, depth + 1);
    else if (S_ISREG(st.st_mode))
      rc = copy_file(src, dst, st.st_mode);
  }
  closedir(d);
  return rc;
}

/* A libFuzzer/AFL++ dictionary of the grammar's `dict` strings, for a target
 * without NAME.dict: the byte mutations libFuzzer makes inside string and
 * buffer arguments then use them too. */
static void grammar_dict(const ossfuzz *o, sf_buf *b) {
  sf_buf_printf(b, "# The `dict` strings of %s (written by `seqfuzz oss-fuzz`).\n", o->api_file);
  for (uint32_t i = 0; i < o->api->ndict; i++) {
    sf_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)o->api->dict[i]; *p; p++)
      if (*p == '"' || *p == '\\' || *p < 0x20 || *p >= 0x7f)
        sf_buf_printf(b, "\\x%02x", *p);
      else
        sf_buf_putc(b, *p);
    sf_buf_printf(b, "\"\n");
  }
}

/* ---- templates ------------------------------------------------------------ */

static const char project_yaml[] =
    "# OSS-Fuzz project: the seqfuzz fuzzer %s of %s (written by `seqfuzz oss-fuzz`).\n"
    "# EDIT-ME: homepage, main_repo and primary_contact are placeholders.\n"
    "homepage: \"https://example.com/EDIT-ME\"\n"
    "language: %s\n"
    "primary_contact: \"EDIT-ME@example.com\"\n"
    "main_repo: \"https://example.com/EDIT-ME/%s.git\"\n"
    "# seqfuzz needs newer libxxhash and Z3 than Ubuntu 20.04 has.\n"
    "base_os_version: ubuntu-24-04\n"
    "fuzzing_engines:\n"
    "  - libfuzzer\n"
    "  - afl\n"
    "sanitizers:\n"
    "  - address\n"
    "  - undefined\n";

static const char cflite_project_yaml[] =
    "# ClusterFuzzLite project (written by `seqfuzz oss-fuzz`).\n"
    "language: %s\n"
    "base_os_version: ubuntu-24-04\n";

/* Shared by both Dockerfiles: the image and seqfuzz's build dependencies
 * (scripts/install-deps.sh; patchelf for the AFL++ mutator's RUNPATH;
 * dpkg-dev..xz-utils for build.sh scripts that fetch Debian sources). */
static const char dockerfile_head[] =
    "FROM gcr.io/oss-fuzz-base/base-builder:ubuntu-24-04\n"
    "RUN apt-get update && apt-get install -y --no-install-recommends \\\n"
    "    cmake make pkg-config libffi-dev libxxhash-dev libz3-dev zip unzip patchelf \\\n"
    "    dpkg-dev patch bzip2 xz-utils\n"
    "# seqfuzz's source tree. EDIT-ME: where seqfuzz comes from (or COPY a checkout\n"
    "# placed in the build context).\n"
    "ARG SEQFUZZ_GIT=https://example.com/EDIT-ME/seqfuzz.git\n"
    "RUN git clone --depth 1 \"$SEQFUZZ_GIT\" $SRC/seqfuzz\n";

static const char ossfuzz_dockerfile[] =
    "# OSS-Fuzz build image for %s (written by `seqfuzz oss-fuzz`).\n"
    "%s"
    "# The library: project.yaml's main_repo (EDIT-ME there and here).\n"
    "RUN git clone --depth 1 https://example.com/EDIT-ME/%s.git $SRC/%s\n"
    "# The seqfuzz target directory: grammar, seeds, dictionary, build.sh.\n"
    "COPY " TARGET_COPY " $SRC/" TARGET_COPY "\n"
    "COPY build.sh $SRC/\n"
    "WORKDIR $SRC/%s\n";

static const char cflite_dockerfile[] =
    "# ClusterFuzzLite build image for %s (written by `seqfuzz oss-fuzz`); the\n"
    "# build context is the repository's root.\n"
    "%s"
    "COPY . $SRC/%s\n"
    "COPY .clusterfuzzlite/" TARGET_COPY " $SRC/" TARGET_COPY "\n"
    "COPY .clusterfuzzlite/build.sh $SRC/\n"
    "WORKDIR $SRC/%s\n";

static const char build_sh_head[] =
    "#!/bin/bash -eu\n"
    "# OSS-Fuzz / ClusterFuzzLite build of the seqfuzz fuzzer of %s (written by\n"
    "# `seqfuzz oss-fuzz`; docs/oss-fuzz.md). It runs in the builder image with\n"
    "# OSS-Fuzz's environment: $CC $CXX $CFLAGS $CXXFLAGS $LIB_FUZZING_ENGINE\n"
    "# $SANITIZER $FUZZING_ENGINE, sources in $SRC, output in $OUT, scratch in $WORK.\n";

/* The rest of build.sh, after API, FUZZER and LIBS. */
static const char build_sh_body[] =
    "T=$SRC/" TARGET_COPY "         # the target directory\n"
    "export SEQFUZZ_ROOT=$SRC/seqfuzz # seqfuzz's source tree\n"
    "# OSS-Fuzz's rule: a fuzz target returns only 0.\n"
    "export SEQFUZZ_OSSFUZZ=1\n"
    "# The runner images lack libz3 (and the target's .so files): they go to\n"
    "# $OUT/lib, where the fuzzers' RUNPATH points.\n"
    "export SEQFUZZ_LDFLAGS='-Wl,-rpath,$ORIGIN/lib'\n"
    "# seeds/common.sh calls Debian's clang-14; the builder images name it clang.\n"
    "if ! command -v clang-14 >/dev/null; then\n"
    "  mkdir -p \"$WORK/bin\"\n"
    "  ln -sf \"$(command -v clang)\" \"$WORK/bin/clang-14\"\n"
    "  ln -sf \"$(command -v clang++)\" \"$WORK/bin/clang++-14\"\n"
    "  export PATH=\"$WORK/bin:$PATH\"\n"
    "fi\n"
    "TARGET=$API\n"
    "source \"$SEQFUZZ_ROOT/seeds/common.sh\"\n"
    "seqfuzz_runtime # $SEQFUZZ: seqfuzz's CLI, built with the AFL++ mutator beside it\n"
    "export SEQFUZZ SEQFUZZ_RT # the target's build.sh need not build them again\n"
    "mkdir -p \"$OUT/lib\"\n"
    "touch \"$WORK/seqfuzz-build.stamp\"\n"
    "\n"
    "if [ -f \"$T/build.sh\" ]; then\n"
    "  # The target's own build (seeds/common.sh conventions) writes $OUT/$FUZZER.\n"
    "  bash \"$T/build.sh\"\n"
    "else\n"
    "  # The grammar's headers are in $T or a directory below; its libraries are\n"
    "  # relative to $T (a .so goes to $OUT/lib, linked by its name).\n"
    "  incs=\"$T $(find \"$T\" -name '*.h' -printf '%h\\n' | sort -u | tr '\\n' ' ')\"\n"
    "  link=()\n"
    "  for lib in \"${LIBS[@]}\"; do\n"
    "    case \"$lib\" in\n"
    "    -*) link+=(\"$lib\") ;;\n"
    "    *.a) link+=(\"$T/$lib\") ;;\n"
    "    *) cp \"$T/$lib\" \"$OUT/lib/\" && link+=(-L \"$OUT/lib\" -l:\"$(basename \"$lib\")\") "
    ";;\n"
    "    esac\n"
    "  done\n"
    "  seqfuzz_fuzzer \"$FUZZER\" \"$T/$API.api\" \"$incs\" \"${link[@]}\"\n"
    "fi\n"
    "[ -x \"$OUT/$FUZZER\" ] || { echo \"build.sh: no $OUT/$FUZZER was built\" >&2; exit 1; }\n"
    "\n"
    "# What the target's build did not provide: seed corpus, dictionary, options.\n"
    "if [ ! -f \"$OUT/${FUZZER}_seed_corpus.zip\" ] && compgen -G \"$T/seeds/*.seq\" >/dev/null; "
    "then\n"
    "  seqfuzz_seeds \"$FUZZER\" \"$T/$API.api\" \"$T/seeds\"\n"
    "fi\n"
    "if [ ! -f \"$OUT/$FUZZER.dict\" ] && [ -f \"$T/$API.dict\" ]; then\n"
    "  cp \"$T/$API.dict\" \"$OUT/$FUZZER.dict\"\n"
    "fi\n"
    "if [ ! -f \"$OUT/$FUZZER.options\" ] && [ -f \"$OUT/$FUZZER.dict\" ]; then\n"
    "  printf '[libfuzzer]\\ndict = %s.dict\\n' \"$FUZZER\" >\"$OUT/$FUZZER.options\"\n"
    "fi\n"
    "\n"
    "# bundle_libs FILE: the shared libraries FILE needs beyond the C and C++\n"
    "# runtimes go to $OUT/lib, and FILE's RUNPATH to $ORIGIN/lib if it lacks it.\n"
    "bundle_libs() {\n"
    "  local f=$1 lib needed=0\n"
    "  while read -r lib; do\n"
    "    case \"$(basename \"$lib\")\" in\n"
    "    ld-linux* | libc.so* | libm.so* | libdl.so* | librt.so* | libpthread.so* | \\\n"
    "      libstdc++.so* | libgcc_s.so*) continue ;;\n"
    "    esac\n"
    "    needed=1\n"
    "    [ \"$(dirname \"$lib\")\" = \"$OUT/lib\" ] || cp -L \"$lib\" \"$OUT/lib/\"\n"
    "  done < <(ldd \"$f\" | awk '$2 == \"=>\" && $3 ~ /^\\// {print $3}')\n"
    "  if [ $needed = 1 ] && ! readelf -d \"$f\" | grep -q '\\$ORIGIN/lib'; then\n"
    "    if command -v patchelf >/dev/null; then\n"
    "      patchelf --set-rpath '$ORIGIN/lib' \"$f\"\n"
    "    else\n"
    "      echo \"build.sh: warning: $f needs $OUT/lib; no patchelf to set its RUNPATH\" >&2\n"
    "    fi\n"
    "  fi\n"
    "}\n"
    "\n"
    "# AFL++ builds: the seqfuzz custom mutator goes to $OUT; afl-fuzz loads it\n"
    "# from AFL_CUSTOM_MUTATOR_LIBRARY (README.md next to this file says how).\n"
    "# Not executable, so that no tool takes it for a fuzz target.\n"
    "if [ \"${FUZZING_ENGINE:-libfuzzer}\" = afl ]; then\n"
    "  cp \"$(dirname \"$SEQFUZZ\")/libseqfuzz-afl.so\" \"$OUT/\"\n"
    "  chmod 644 \"$OUT/libseqfuzz-afl.so\"\n"
    "  bundle_libs \"$OUT/libseqfuzz-afl.so\"\n"
    "fi\n"
    "# The executables this build made (not afl-fuzz and its tools, copied before).\n"
    "find \"$OUT\" -maxdepth 1 -type f -executable -newer \"$WORK/seqfuzz-build.stamp\" |\n"
    "  while read -r f; do\n"
    "    if [ \"$(head -c 4 \"$f\" | tail -c 3)\" = ELF ]; then bundle_libs \"$f\"; fi\n"
    "  done\n";

static const char workflow_yml[] =
    "# ClusterFuzzLite batch fuzzing and corpus pruning of %s (written by\n"
    "# `seqfuzz oss-fuzz`, after ClusterFuzzLite's GitHub Actions documentation).\n"
    "# Both jobs share the corpus in the storage repository (EDIT-ME below; the\n"
    "# token is a repository secret with write access to it).\n"
    "name: ClusterFuzzLite batch fuzzing\n"
    "on:\n"
    "  push:\n"
    "    branches:\n"
    "      - main  # EDIT-ME: the default branch\n"
    "  schedule:\n"
    "    - cron: '0 0/6 * * *'   # batch fuzzing, every 6 hours\n"
    "    - cron: '30 2 * * *'    # corpus pruning, once a day\n"
    "  workflow_dispatch:\n"
    "permissions: read-all\n"
    "jobs:\n"
    "  BatchFuzzing:\n"
    "    if: github.event.schedule != '30 2 * * *'\n"
    "    runs-on: ubuntu-latest\n"
    "    strategy:\n"
    "      fail-fast: false\n"
    "      matrix:\n"
    "        sanitizer:\n"
    "        - address\n"
    "        - undefined\n"
    "    steps:\n"
    "    - name: Build Fuzzers (${{ matrix.sanitizer }})\n"
    "      id: build\n"
    "      uses: google/clusterfuzzlite/actions/build_fuzzers@v1\n"
    "      with:\n"
    "        language: %s\n"
    "        sanitizer: ${{ matrix.sanitizer }}\n"
    "    - name: Run Fuzzers (${{ matrix.sanitizer }})\n"
    "      id: run\n"
    "      uses: google/clusterfuzzlite/actions/run_fuzzers@v1\n"
    "      with:\n"
    "        github-token: ${{ secrets.GITHUB_TOKEN }}\n"
    "        fuzz-seconds: 3600\n"
    "        mode: 'batch'\n"
    "        sanitizer: ${{ matrix.sanitizer }}\n"
    "        storage-repo: https://${{ secrets.PERSONAL_ACCESS_TOKEN }}@github.com/OWNER/"
    "EDIT-ME-STORAGE-REPO.git\n"
    "        storage-repo-branch: main\n"
    "        storage-repo-branch-coverage: gh-pages\n"
    "  Pruning:\n"
    "    if: github.event.schedule == '30 2 * * *'\n"
    "    runs-on: ubuntu-latest\n"
    "    steps:\n"
    "    - name: Build Fuzzers\n"
    "      id: build\n"
    "      uses: google/clusterfuzzlite/actions/build_fuzzers@v1\n"
    "      with:\n"
    "        language: %s\n"
    "    - name: Run Fuzzers\n"
    "      id: run\n"
    "      uses: google/clusterfuzzlite/actions/run_fuzzers@v1\n"
    "      with:\n"
    "        github-token: ${{ secrets.GITHUB_TOKEN }}\n"
    "        fuzz-seconds: 600\n"
    "        mode: 'prune'\n"
    "        storage-repo: https://${{ secrets.PERSONAL_ACCESS_TOKEN }}@github.com/OWNER/"
    "EDIT-ME-STORAGE-REPO.git\n"
    "        storage-repo-branch: main\n"
    "        storage-repo-branch-coverage: gh-pages\n";

/* The run instructions; %1 project, %2 fuzzer, in the order used. */
static const char readme_md[] =
    "# OSS-Fuzz / ClusterFuzzLite project for %s\n"
    "\n"
    "Written by `seqfuzz oss-fuzz` from the target directory `%s` (copied to\n"
    "`" TARGET_COPY "/`). seqfuzz's docs/oss-fuzz.md describes every file. First\n"
    "replace the placeholders: `grep -rn EDIT-ME .` (the library's repository in\n"
    "project.yaml and the Dockerfiles, where seqfuzz is cloned from, the storage\n"
    "repository of the workflow).\n"
    "\n"
    "## OSS-Fuzz\n"
    "\n"
    "```sh\n"
    "mkdir -p $OSS_FUZZ/projects/%s\n"
    "cp -r project.yaml Dockerfile build.sh " TARGET_COPY " $OSS_FUZZ/projects/%s/\n"
    "cd $OSS_FUZZ\n"
    "python3 infra/helper.py build_image %s\n"
    "python3 infra/helper.py build_fuzzers --sanitizer address %s\n"
    "python3 infra/helper.py check_build --sanitizer address %s\n"
    "python3 infra/helper.py run_fuzzer %s %s\n"
    "```\n"
    "\n"
    "### AFL++\n"
    "\n"
    "An AFL++ build (`--engine afl`) puts the seqfuzz custom mutator in `$OUT`\n"
    "as `libseqfuzz-afl.so`, and the grammar as `%s.api`. afl-fuzz loads a custom\n"
    "mutator only from the environment variable AFL_CUSTOM_MUTATOR_LIBRARY, and\n"
    "the mutator reads the grammar from SEQFUZZ_API. OSS-Fuzz's `run_fuzzer`\n"
    "passes the environment on to afl-fuzz, so locally:\n"
    "\n"
    "```sh\n"
    "python3 infra/helper.py build_fuzzers --engine afl --sanitizer address %s\n"
    "python3 infra/helper.py run_fuzzer --engine afl \\\n"
    "    -e AFL_CUSTOM_MUTATOR_LIBRARY=/out/libseqfuzz-afl.so -e AFL_CUSTOM_MUTATOR_ONLY=1 \\\n"
    "    -e SEQFUZZ_API=/out/%s.api %s %s\n"
    "```\n"
    "\n"
    "OSS-Fuzz's own fuzzing (ClusterFuzz) and ClusterFuzzLite do not pass it:\n"
    "a project has no way to set AFL_CUSTOM_MUTATOR_LIBRARY there. project.yaml\n"
    "has no such key, and ClusterFuzz's AFL++ launcher takes environment\n"
    "variables from a fuzzer's `.options` file only from an allow-list\n"
    "(AFL_DRIVER_DONT_DEFER and GODEBUG). ClusterFuzzLite runs libFuzzer only.\n"
    "So ClusterFuzz's AFL++ jobs fuzz `%s` with AFL++'s byte mutations (the\n"
    "harness reads any bytes as a sequence of legal calls, so they still\n"
    "explore the API, without the structure-aware mutator); its libFuzzer jobs\n"
    "use seqfuzz's mutator, which is linked into the fuzzer.\n"
    "\n"
    "## ClusterFuzzLite\n"
    "\n"
    "Copy `.clusterfuzzlite/` and `.github/` to the root of the library's\n"
    "repository (ClusterFuzzLite builds with the repository as the Docker\n"
    "context). `.github/workflows/cflite_batch.yml` runs batch fuzzing every 6\n"
    "hours and corpus pruning once a day on one storage repository.\n";

/* ---- the command ---------------------------------------------------------- */

static int generate(ossfuzz *o) {
  char path[PATH_MAX], cfl[PATH_MAX], wf[PATH_MAX];
  if (join(cfl, sizeof cfl, o->out, ".clusterfuzzlite") ||
      join(wf, sizeof wf, o->out, ".github/workflows"))
    return -1;
  /* The copy of TARGET would land inside TARGET, again and again. */
  struct stat target_st;
  if (stat(o->out, &o->out_st) == 0 && stat(o->target, &target_st) == 0 &&
      o->out_st.st_dev == target_st.st_dev && o->out_st.st_ino == target_st.st_ino)
    return cli_error("%s: DIR must not be the target directory itself", o->out), -1;
  if (cli_make_dirs(o->out) || cli_make_dirs(cfl) || cli_make_dirs(wf)) return -1;
  if (stat(o->out, &o->out_st) != 0) return cli_error("%s: %s", o->out, strerror(errno)), -1;

  sf_buf b = {0};
  int rc = -1;
  const char *p = o->project, *f = o->fuzzer, *lang = o->language;

  sf_buf_printf(&b, project_yaml, f, p, lang, p);
  if (write_buf(o->out, "project.yaml", &b, 0644)) goto done;
  sf_buf_reset(&b);
  sf_buf_printf(&b, cflite_project_yaml, lang);
  if (write_buf(cfl, "project.yaml", &b, 0644)) goto done;

  sf_buf_reset(&b);
  sf_buf_printf(&b, ossfuzz_dockerfile, p, dockerfile_head, p, p, p);
  if (write_buf(o->out, "Dockerfile", &b, 0644)) goto done;
  sf_buf_reset(&b);
  sf_buf_printf(&b, cflite_dockerfile, p, dockerfile_head, p, p);
  if (write_buf(cfl, "Dockerfile", &b, 0644)) goto done;

  sf_buf_reset(&b);
  sf_buf_printf(&b, build_sh_head, p);
  sf_buf_printf(&b, "API=%s # the grammar: $SRC/" TARGET_COPY "/%s\n", o->stem, o->api_file);
  sf_buf_printf(&b, "FUZZER=%s # the fuzzer in $OUT\n", f);
  sf_buf_printf(&b, "# The grammar's library lines (used without a build.sh).\nLIBS=(");
  for (uint32_t i = 0; i < o->api->nlibraries; i++) {
    if (i) sf_buf_putc(&b, ' ');
    sh_quote(&b, o->api->libraries[i]);
  }
  sf_buf_printf(&b, ")\n%s", build_sh_body);
  if (write_buf(o->out, "build.sh", &b, 0755) || write_buf(cfl, "build.sh", &b, 0755)) goto done;

  sf_buf_reset(&b);
  sf_buf_printf(&b, workflow_yml, p, lang, lang);
  if (write_buf(wf, "cflite_batch.yml", &b, 0644)) goto done;

  sf_buf_reset(&b);
  sf_buf_printf(&b, readme_md, p, o->target, p, p, p, p, p, p, f, f, p, f, p, f, f);
  if (write_buf(o->out, "README.md", &b, 0644)) goto done;

  /* The target directory, in both build contexts. */
  const char *copies[2] = {o->out, cfl};
  for (int i = 0; i < 2; i++) {
    if (join(path, sizeof path, copies[i], TARGET_COPY) || copy_tree(o, o->target, path, 0))
      goto done;
    if (!o->has_dict && o->api->ndict) {
      char name[NAME_MAX + 8];
      snprintf(name, sizeof name, "%s.dict", o->stem);
      sf_buf_reset(&b);
      grammar_dict(o, &b);
      if (write_buf(path, name, &b, 0644)) goto done;
    }
  }
  rc = 0;
done:
  sf_buf_free(&b);
  return rc;
}

int cmd_ossfuzz(int argc, char **argv) {
  const char *pos[2];
  ossfuzz o = {0};
  o.out = cli_option(argc, argv, "--output", "-o");
  o.language = cli_option(argc, argv, "--language", NULL);
  const char *name = cli_option(argc, argv, "--name", NULL);
  if (cli_positionals(argc, argv, pos, 2) != 1) return cli_usage_error(argv[0], NULL);
  if (!o.out) return cli_usage_error(argv[0], "-o DIR is required");
  if (!o.language) o.language = "c";
  if (strcmp(o.language, "c") != 0 && strcmp(o.language, "c++") != 0)
    return cli_usage_error(argv[0], "--language is c or c++, not '%s'", o.language);
  if (name && !valid_project(name))
    return cli_usage_error(argv[0],
                           "--name '%s': an OSS-Fuzz project name is lower-case letters, digits, "
                           "'-', '_' and '.'",
                           name);
  o.target = pos[0];

  if (find_api(&o)) return CLI_EXIT_ERROR;
  char path[PATH_MAX];
  if (join(path, sizeof path, o.target, o.api_file)) return CLI_EXIT_ERROR;
  if (!(o.api = cli_load_api(path))) return CLI_EXIT_ERROR;
  fuzzer_name(&o);
  if (name)
    snprintf(o.project, sizeof o.project, "%s", name);
  else
    default_project(&o);
  int rc = CLI_EXIT_ERROR;
  o.has_build = !join(path, sizeof path, o.target, "build.sh") && is_file(path);
  char dict[NAME_MAX + 8];
  snprintf(dict, sizeof dict, "%s.dict", o.stem);
  o.has_dict = !join(path, sizeof path, o.target, dict) && is_file(path);
  if ((o.has_build || check_libraries(&o) == 0) && generate(&o) == 0) {
    printf("%s: OSS-Fuzz project %s (fuzzer %s, %s), ClusterFuzzLite configuration in "
           "%s/.clusterfuzzlite and %s/.github; replace the EDIT-ME placeholders (%s/README.md)\n",
           o.out, o.project, o.fuzzer,
           o.has_build ? "built by the target's build.sh" : "built from the grammar's libraries",
           o.out, o.out, o.out);
    /* Every OSS-Fuzz build (sanitizer, engine, coverage) then links the same
     * objects, built for one of them. */
    if (!o.has_build)
      fprintf(stderr,
              "seqfuzz oss-fuzz: note: %s has no build.sh, so its prebuilt libraries are "
              "linked in every OSS-Fuzz build as they are; a build.sh that compiles the "
              "library with $CC $CFLAGS suits OSS-Fuzz (docs/oss-fuzz.md)\n",
              o.target);
    rc = CLI_EXIT_OK;
  }
  sf_api_free(o.api);
  return rc;
}
