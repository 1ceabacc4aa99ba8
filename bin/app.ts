#!/usr/bin/env node
import { App } from 'aws-cdk-lib';
import { ReportExportStack } from '../lib/infra/report-export-stack';
import { configFromContext } from '../lib/infra/stack-config';

const app = new App();
new ReportExportStack(app, 'ReportExport', {
  config: configFromContext(app.node.tryGetContext('reportExport')),
});
app.synth();
