/** Versions reported by GET /health (docs/protocol.md §1.7): ours from package.json, @ag-ui/core's installed one. */

import agUiCorePackage from '@ag-ui/core/package.json' with { type: 'json' };
import serverPackage from '../../package.json' with { type: 'json' };

export const versions = {
  serverVersion: serverPackage.version,
  protocolPackageVersion: agUiCorePackage.version,
};
