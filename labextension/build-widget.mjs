// The anywidget module of the card: lib/widget.js (compiled by tsc) and what it imports,
// bundled into one ES module, with the card's stylesheet beside it, into the Python
// package (jax_nbhelp/show/static/), where jax_nbhelp.show.card.live reads them.
//
// The stylesheet is style/base.css with a fallback for each JupyterLab theme variable:
// VS Code maps most of them onto its theme, Colab defines none. The fallbacks are
// translucent or inherited, so they read on light and dark backgrounds alike.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { rspack } from '@rspack/core';

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(here, '../jax_nbhelp/show/static');
const production = !process.argv.includes('--development');

const FALLBACKS = {
  '--jp-border-color1': 'rgba(128, 128, 128, 0.45)',
  '--jp-border-color2': 'rgba(128, 128, 128, 0.3)',
  '--jp-brand-color1': '#1976d2',
  '--jp-code-font-family': 'monospace',
  '--jp-code-font-size': '12px',
  '--jp-content-font-color1': 'inherit',
  '--jp-error-color1': '#d32f2f',
  '--jp-info-color1': '#0288d1',
  '--jp-layout-color1': 'transparent',
  '--jp-layout-color2': 'rgba(128, 128, 128, 0.12)',
  '--jp-layout-color3': 'rgba(128, 128, 128, 0.25)',
  '--jp-success-color1': '#2e7d32',
  '--jp-ui-font-color1': 'inherit',
  '--jp-ui-font-color2': 'inherit',
  '--jp-ui-font-color3': '#888',
  '--jp-ui-font-family': 'system-ui, -apple-system, "Segoe UI", sans-serif',
  '--jp-ui-font-size0': '11px',
  '--jp-ui-font-size1': '13px',
  '--jp-ui-font-size2': '15px',
  '--jp-ui-inverse-font-color1': '#fff',
  '--jp-warn-color0': '#bf6d00',
  '--jp-warn-color1': '#e08e0b'
};

mkdirSync(out, { recursive: true });
const css = readFileSync(resolve(here, 'style/base.css'), 'utf8').replace(
  /var\((--jp-[\w-]+)\)/g,
  (whole, name) => {
    if (!(name in FALLBACKS)) {
      throw new Error(`style/base.css: no fallback for ${name}; add one to build-widget.mjs`);
    }
    return `var(${name}, ${FALLBACKS[name]})`;
  }
);
writeFileSync(resolve(out, 'card.css'), css);

const compiler = rspack({
  mode: production ? 'production' : 'development',
  devtool: false,
  entry: resolve(here, 'lib/widget.js'),
  experiments: { outputModule: true },
  output: {
    path: out,
    filename: 'card.js',
    module: true,
    library: { type: 'module' }
  },
  optimization: { minimize: production }
});

compiler.run((error, stats) => {
  if (error || stats.hasErrors()) {
    console.error(error ?? stats.toString({ all: false, errors: true }));
    process.exit(1);
  }
  compiler.close(() => console.log(`built ${resolve(out, 'card.js')}`));
});
