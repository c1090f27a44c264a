"""CUDA API calls made from known Python lines, for --python-backtrace=cuda without a GPU
(tests/cuda/CudaCaptureE2ETest.cpp). Loads Sightline's CUDA module the way the CUDA driver does
(CUDA_INJECTION64_PATH, then InitializeInjection) and drives the stand-in libcupti
(tests/cuda/FakeCupti.cpp), which calls the module's API callback around each call as CUPTI
does: 3 launches from the main thread, 2 from another thread, one cudaDeviceSynchronize.
With a count as its argument (tests/bench/cuda/python_backtrace_cuda.sh) it makes that many
launches from the main thread instead and prints nothing else."""
import ctypes
import os
import sys
import threading

CUDA_DEVICE_SYNCHRONIZE = 165  # CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020


def launch(cupti):
    cupti.fakeCuptiLaunch(b"_Z6kernelPfi")  # the launch: its backtrace names this line


def synchronize(cupti):
    cupti.fakeCuptiRuntimeCall(CUDA_DEVICE_SYNCHRONIZE)  # the sync: its backtrace names this line


def worker(cupti):
    for _ in range(2):
        launch(cupti)


def main():
    path = os.environ.get("CUDA_INJECTION64_PATH")
    if not path:
        print("cuda_backtrace: CUDA_INJECTION64_PATH not set: not traced")
        return
    injection = ctypes.CDLL(path)
    cupti = ctypes.CDLL("libcupti.so.13", mode=os.RTLD_NOLOAD | os.RTLD_NOW)
    if not hasattr(cupti, "fakeCuptiLaunch"):
        raise SystemExit("cuda_backtrace: libcupti.so.13 is not the stand-in")
    if injection.InitializeInjection() != 1:
        raise SystemExit("cuda_backtrace: InitializeInjection failed")
    cupti.fakeCuptiCreateContext()
    if len(sys.argv) > 1:
        for _ in range(int(sys.argv[1])):
            launch(cupti)
        return
    for _ in range(3):
        launch(cupti)
    t = threading.Thread(target=worker, args=(cupti,))
    t.start()
    t.join()
    synchronize(cupti)
    print("cuda_backtrace done")


main()
