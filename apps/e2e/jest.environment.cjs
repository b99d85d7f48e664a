// Node's Jest environment plus one hook: when a test or hook fails (a timeout included), the
// scenario code gets to keep the evidence (each person's screenshot and console log) before the
// browser goes away. src/support/scenario.ts installs globalThis.__e2eOnFailure.
const { TestEnvironment } = require('jest-environment-node');

class EndToEndEnvironment extends TestEnvironment {
  async handleTestEvent(event) {
    if (event.name !== 'test_fn_failure' && event.name !== 'hook_failure') return;
    const onFailure = this.global.__e2eOnFailure;
    if (typeof onFailure !== 'function') return;
    const test = event.test ?? event.hook?.parent;
    try {
      await onFailure(test?.name ?? 'hook');
    } catch (error) {
      console.error(`could not keep the failure's evidence: ${error}`);
    }
  }
}

module.exports = EndToEndEnvironment;
