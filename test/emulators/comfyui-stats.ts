// GET /system_stats as server.py builds it: system {os (os.name: 'posix'), ram_total, ram_free,
// comfyui_version, required_frontend_version, installed_templates_version,
// required_templates_version, python_version (sys.version), pytorch_version, embedded_python,
// argv} and devices [{name, type, index, vram_total, vram_free, torch_vram_total,
// torch_vram_free}] (a CUDA device named as model_management.get_torch_device_name does).
// Versions: comfyui_version.py 0.3.64 and requirements.txt of the same commit.

export interface SystemStatsOverrides {
  system?: Record<string, unknown>;
  devices?: Record<string, unknown>[];
}

export function systemStats(port: number, overrides: SystemStatsOverrides = {}): unknown {
  const GiB = 1024 ** 3;
  return {
    system: {
      os: 'posix',
      ram_total: 64 * GiB,
      ram_free: 51 * GiB,
      comfyui_version: '0.3.64',
      required_frontend_version: '1.27.10',
      installed_templates_version: '0.1.95',
      required_templates_version: '0.1.95',
      python_version: '3.12.3 (main, Feb  4 2025, 14:48:35) [GCC 13.3.0]',
      pytorch_version: '2.8.0+cu128',
      embedded_python: false,
      argv: ['main.py', '--listen', '127.0.0.1', '--port', String(port)],
      ...overrides.system,
    },
    devices: overrides.devices ?? [
      {
        name: 'cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync',
        type: 'cuda',
        index: 0,
        vram_total: 25386352640,
        vram_free: 23980261376,
        torch_vram_total: 0,
        torch_vram_free: 0,
      },
    ],
  };
}
