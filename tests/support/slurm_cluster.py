"""A real one-node Slurm cluster in a temporary folder: munged, slurmctld and slurmd from Debian.

The daemons run in the foreground under ``timeout -k`` (so a crashed test run cannot leave them
behind for long), each in its own process group, and are stopped by PID. The node is shaped like a
small cluster node: partitions ``cpu`` and ``gpu`` (the names the Slurm profile uses) and one
``gpu`` generic resource without a device (``File=/dev/null``), so GPU requests are scheduled the
way a real cluster schedules them while the job itself runs on the CPU.

Accounting is off (no slurmdbd), so ``sacct`` fails: status queries must use ``squeue``, and
``MinJobAge`` is kept well above three times the executor's status-check delay (otherwise the
executor plugin falls back to ``sacct`` and waits forever).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

PACKAGES = ("slurm-wlm", "munge")
DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue")
MIN_JOB_AGE = 300  # seconds a finished job stays visible to squeue


class Unavailable(RuntimeError):
    """Slurm cannot be had on this machine (not installed and not installable)."""


def _missing() -> list[str]:
    found = {name: shutil.which(name) or shutil.which(name, path="/usr/sbin") for name in DAEMONS}
    return [name for name, path in found.items() if not path]


def ensure_installed(timeout: int = 420) -> None:
    """Install Debian's Slurm and MUNGE when missing and we may (root with apt-get)."""
    if not _missing():
        return
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise Unavailable(
            f"{', '.join(_missing())} missing and cannot be installed here "
            "(needs root and apt-get: apt-get install slurm-wlm munge)"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["timeout", "-k", "10", str(timeout), "apt-get", "install", "-y", "-qq", *PACKAGES]
    proc = subprocess.run(install, capture_output=True, text=True, env=env)
    if proc.returncode != 0:  # stale package lists: update once, then try again
        update = ["timeout", "-k", "10", str(timeout), "apt-get", "update", "-qq"]
        subprocess.run(update, capture_output=True, text=True, env=env)
        proc = subprocess.run(install, capture_output=True, text=True, env=env)
    if proc.returncode != 0 or _missing():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise Unavailable(f"apt-get install {' '.join(PACKAGES)} failed: {tail[0]}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _binary(name: str) -> str:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin") or name


@dataclass
class Cluster:
    """One node, two partitions, one (device-less) GPU; daemons started by :meth:`start`."""

    root: Path
    lifetime: int = 900  # seconds after which timeout(1) ends a daemon whatever happens
    node: str = field(default_factory=socket.gethostname)
    cpus: int = field(default_factory=lambda: min(os.cpu_count() or 1, 4))
    memory_mb: int = 64_000  # declared, not checked: what the profile's largest jobs ask for
    _procs: dict[str, subprocess.Popen] = field(default_factory=dict)

    @property
    def conf(self) -> Path:
        return self.root / "etc" / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        """Environment for clients (sbatch, squeue, snakemake): points them at this cluster."""
        path = os.pathsep.join([str(self.root / "bin"), os.environ.get("PATH", "")])
        return {**os.environ, "SLURM_CONF": str(self.conf), "PATH": path}

    def write_config(self) -> None:
        etc, munge = self.root / "etc", self.root / "munge"
        for sub in ("etc", "state", "spool", "log", "munge", "munge-key"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        munge.chmod(0o755)  # clients need to reach the socket
        key = self.root / "munge-key" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        (self.root / "munge-key").chmod(0o700)
        log = self.root / "log"
        ctld_port, slurmd_port = _free_port(), _free_port()
        lines = [
            "ClusterName=hintertest",
            f"SlurmctldHost={self.node}(127.0.0.1)",
            f"SlurmctldPort={ctld_port}",
            f"SlurmdPort={slurmd_port}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={munge / 'munge.sock'}",
            f"StateSaveLocation={self.root / 'state'}",
            f"SlurmdSpoolDir={self.root / 'spool'}",
            f"SlurmctldPidFile={log / 'slurmctld.pid'}",
            f"SlurmdPidFile={log / 'slurmd.pid'}",
            f"SlurmctldLogFile={log / 'slurmctld.log'}",
            f"SlurmdLogFile={log / 'slurmd.log'}",
            # No cgroups in a container: track processes by parent id, bind no tasks.
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "MpiDefault=none",
            f"MinJobAge={MIN_JOB_AGE}",
            "ReturnToService=2",
            # Memory is not a consumable here (CR_Core); the node only has to admit the
            # profile's requests, so slurmd takes the declared size instead of checking it.
            "SlurmdParameters=config_overrides",
            "GresTypes=gpu",
            f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs={self.cpus} "
            f"RealMemory={self.memory_mb} Gres=gpu:1 State=UNKNOWN",
            f"PartitionName=cpu Nodes={self.node} Default=YES MaxTime=INFINITE State=UP",
            f"PartitionName=gpu Nodes={self.node} MaxTime=INFINITE State=UP",
        ]
        self.conf.write_text("\n".join(lines) + "\n")
        # Inside a job, snakemake-executor-plugin-slurm-jobstep (0.6.1) removes every SLURM_*
        # variable, SLURM_CONF too, before it calls srun. A real cluster keeps its slurm.conf at
        # the default path (or runs configless), where that does not matter; this one lives in a
        # temporary folder, so srun gets its SLURM_CONF back from a wrapper first on PATH.
        wrapper = self.root / "bin" / "srun"
        wrapper.parent.mkdir(exist_ok=True)
        wrapper.write_text(f'#!/bin/sh\nSLURM_CONF={self.conf} exec {_binary("srun")} "$@"\n')
        wrapper.chmod(0o755)
        # A GPU slot without a device: jobs get CUDA_VISIBLE_DEVICES as on a GPU node.
        (etc / "gres.conf").write_text(
            f"AutoDetect=off\nNodeName={self.node} Name=gpu File=/dev/null Count=1\n"
        )

    def _spawn(self, name: str, *args: str) -> None:
        out = (self.root / "log" / f"{name}.out").open("w")
        cmd = ["timeout", "-k", "5", str(self.lifetime), _binary(name), *args]
        self._procs[name] = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env=self.env, start_new_session=True
        )
        out.close()

    def start(self, wait: float = 30.0) -> None:
        """Start munged, slurmctld and slurmd; return when the node is idle."""
        self.write_config()
        munge = self.root / "munge"
        self._spawn(
            "munged",
            "-F",
            "--force",
            f"--socket={munge / 'munge.sock'}",
            f"--key-file={self.root / 'munge-key' / 'munge.key'}",
            f"--log-file={self.root / 'log' / 'munged.log'}",
            f"--pid-file={munge / 'munged.pid'}",
            f"--seed-file={munge / 'munged.seed'}",
        )
        self._wait(lambda: (munge / "munge.sock").exists(), wait, "munged socket")
        self._spawn("slurmctld", "-D", "-i", "-f", str(self.conf))
        self._spawn("slurmd", "-D", "-f", str(self.conf), "-N", self.node)
        self._wait(lambda: self.node_state() in ("idle", "mixed", "allocated"), wait, "node idle")

    def _wait(self, ready, seconds: float, what: str) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for name, proc in self._procs.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited ({proc.returncode}):\n{self.logs()}")
            if ready():
                return
            time.sleep(0.2)
        raise RuntimeError(f"timed out waiting for {what}:\n{self.logs()}")

    def run(self, *cmd: str, timeout: int = 20) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["timeout", "-k", "5", str(timeout), *cmd],
            capture_output=True,
            text=True,
            env=self.env,
        )

    def node_state(self) -> str:
        proc = self.run("sinfo", "-h", "-N", "-o", "%T", timeout=10)
        return proc.stdout.strip().splitlines()[0].rstrip("*~#") if proc.stdout.strip() else ""

    def jobs(self) -> list[dict[str, str]]:
        """Every job slurmctld knows (finished ones stay for MinJobAge), from ``scontrol``."""
        keys = ("JobId", "Partition", "JobState", "NumCPUs", "TresPerJob", "ExitCode", "Comment")
        proc = self.run("scontrol", "-o", "show", "job")
        jobs = []
        for line in proc.stdout.splitlines():
            fields = dict(item.split("=", 1) for item in line.split() if "=" in item)
            if "JobId" in fields:
                jobs.append({key: fields.get(key, "") for key in keys})
        return sorted(jobs, key=lambda job: int(job["JobId"]))

    def logs(self, lines: int = 15) -> str:
        out = []
        for path in sorted((self.root / "log").glob("*.*")):
            if path.suffix in (".log", ".out"):
                tail = path.read_text(errors="replace").splitlines()[-lines:]
                out.append(f"--- {path.name}\n" + "\n".join(tail))
        return "\n".join(out)

    def stop(self) -> None:
        """Cancel what is left, then stop the daemons by PID (SIGTERM, then SIGKILL)."""
        if "slurmctld" in self._procs and self._procs["slurmctld"].poll() is None:
            self.run("scancel", "--full", "--partition=cpu,gpu", timeout=10)
        for name in ("slurmd", "slurmctld", "munged"):
            proc = self._procs.pop(name, None)
            if proc is None or proc.poll() is not None:
                continue
            proc.terminate()  # timeout(1) passes SIGTERM on to the daemon
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # the daemon's own process group
                proc.wait(timeout=10)
