const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { basename, join } = require('node:path');

/**
 * The webpack configuration of every NestJS service: one bundle (workspace libraries inlined,
 * npm packages external) plus a package.json and lockfile pruned to the packages the bundle
 * imports, so the container image installs only what this service uses.
 *
 * @param {string} appDir the service's folder (apps/<name>); the output goes to dist/apps/<name>.
 */
module.exports = function nodeServiceConfig(appDir) {
  return {
    output: { path: join(appDir, '../../dist/apps', basename(appDir)), clean: true },
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
};
