# lit configuration for relayout's transformation and command-line tests.
import os
import lit.formats

config.name = "relayout"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cu", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.relayout_bin_root, "tests", "lit")
config.excludes = ["Inputs"]

# %relayout_verify before %relayout, which is its prefix.
config.substitutions.append(("%relayout_verify", config.relayout_verify_tool))
config.substitutions.append(("%relayout", config.relayout_tool))
config.substitutions.append(("%FileCheck", config.filecheck))
# Every emitted .cu is compiled for the GPU the project targets, as the user would build it.
config.substitutions.append(("%nvcc_path", config.nvcc))
# The host C++ compiler relayout was built with: stand-in programs for relayout-verify.
config.substitutions.append(("%cxx", config.cxx))
config.substitutions.append(("%nvcc", config.nvcc + " -arch=sm_90 -std=c++17 -I" + config.runtime_include))
# What instrumented programs link, as relayout spells it (`relayout runtime-flags --link`: the
# runtime library, CUPTI with its run path, the driver).
import subprocess
config.substitutions.append(("%runtime_link", subprocess.run([config.relayout_tool, "runtime-flags", "--link"],
                                                             capture_output=True, text=True, check=True).stdout.strip()))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%samples", os.path.join(config.relayout_src_root, "samples")))
config.environment["HOME"] = os.environ.get("HOME", "/tmp")
# LLVM's `not`, `count` and FileCheck come from the same LLVM as the tool.
config.environment["PATH"] = os.pathsep.join([os.path.dirname(config.filecheck), os.environ.get("PATH", "")])
# Built sample programs: build/samples/NAME/sample_NAME_VARIANT.
config.substitutions.append(("%samplebin", os.path.join(config.relayout_bin_root, "samples")))
# The runtime library itself (what `nm` reads).
config.substitutions.append(("%runtime_lib", os.path.join(config.relayout_bin_root, "runtime", "librelayout_rt.a")))
config.substitutions.append(("%runtime_include", config.runtime_include))

# Tests that fill a small file system mount a tmpfs of a few KB; that needs root (or CAP_SYS_ADMIN).
def _can_mount_tmpfs():
    import subprocess, tempfile
    folder = tempfile.mkdtemp(prefix="relayout-lit-")
    try:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", folder],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        if mounted:
            subprocess.run(["umount", folder], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return mounted
    except OSError:
        return False
    finally:
        try:
            os.rmdir(folder)
        except OSError:
            pass

if _can_mount_tmpfs():
    config.available_features.add("tmpfs-mount")
else:
    lit_config.note("the full-disk tests are skipped: this user cannot mount a tmpfs")

# batch-slurm.test starts a single-node Slurm of its own (Debian's slurm-wlm and munge); it says why
# and skips its checks when the daemons do not come up.
import shutil
if all(shutil.which(tool) for tool in ("munged", "slurmctld", "slurmd", "sbatch")):
    config.available_features.add("slurm")
else:
    lit_config.note("the Slurm test is skipped: munged, slurmctld, slurmd or sbatch is not on PATH "
                    "(Debian: apt-get install slurm-wlm munge)")

# report.html is checked as a browser builds it (headless Chromium's DOM) where chromium is installed.
if shutil.which("chromium"):
    config.available_features.add("chromium")
# Open MPI's compiler wrapper: the MPI corpus program builds with it as nvcc's host compiler.
if shutil.which("mpicxx"):
    config.available_features.add("mpi")
