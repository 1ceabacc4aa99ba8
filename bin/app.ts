#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ReportExportStack } from '../lib/infra/report-export-stack';
import { configFromContext } from '../lib/infra/stack-config';

const app = new App();
new ReportExportStack(app, 'ReportExport', {
  config: configFromContext(app.node.tryGetContext('reportExport')),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
