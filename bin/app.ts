#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { configFromContext, ReportExportStack } from '../lib/infra';

const app = new App();
new ReportExportStack(app, 'ReportExport', {
  config: configFromContext(app.node.tryGetContext('reportExport')),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
