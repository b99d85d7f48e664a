const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('node:path');

// One bundle per service (workspace libraries inlined, npm packages external) plus a pruned
// package.json and lockfile, so the container image installs only what this service uses.
module.exports = {
  output: { path: join(__dirname, '../../dist/apps/rooms'), clean: true },
  devtool: 'source-map',
  plugins: [
    new NxAppWebpackPlugin({
      target: 'node',
      compiler: 'tsc',
      main: './src/main.ts',
      tsConfig: './tsconfig.app.json',
      outputHashing: 'none',
      optimization: false,
      generatePackageJson: true,
      skipTypeChecking: true,
      sourceMap: true,
    }),
  ],
};
