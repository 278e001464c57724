import com.google.gson.Gson;
import com.google.gson.JsonObject;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1PodDisruptionBudget;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V2HorizontalPodAutoscaler;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.yaml.snakeyaml.Yaml;

/**
 * Lints a Helm chart strictly, renders it with each values file given, and checks every
 * rendered object against the Kubernetes API models (unknown fields, missing required ones).
 * Usage: java -cp 'libs/*' CheckChart.java CHART [VALUES_FILE ...] (none: the chart's defaults).
 * Exits 1, naming the object and the problem, at the first failure.
 */
public class CheckChart {
  interface Validator { void validate(JsonObject json) throws Exception; }

  static final Map<String, Validator> MODELS = Map.of(
      "apps/v1/Deployment", V1Deployment::validateJsonObject,
      "v1/Service", V1Service::validateJsonObject,
      "v1/ConfigMap", V1ConfigMap::validateJsonObject,
      "v1/Secret", V1Secret::validateJsonObject,
      "batch/v1/Job", V1Job::validateJsonObject,
      "policy/v1/PodDisruptionBudget", V1PodDisruptionBudget::validateJsonObject,
      "autoscaling/v2/HorizontalPodAutoscaler", V2HorizontalPodAutoscaler::validateJsonObject);

  public static void main(String[] args) throws Exception {
    Path chart = Path.of(args[0]);
    LintResult lint = new Helm(chart).lint().strict().call();
    if (lint.isFailed()) fail("helm lint --strict " + chart + ":\n  " + String.join("\n  ", lint.getMessages()));
    List<String> valuesFiles = args.length > 1 ? List.of(args).subList(1, args.length) : List.of("");
    Gson gson = new Gson();
    for (String valuesFile : valuesFiles) {
      TemplateCommand template = new Helm(chart).template().withName("rewind").withNamespace("rewind");
      if (!valuesFile.isEmpty()) template = template.withValuesFile(Path.of(valuesFile));
      String rendered;
      try {
        rendered = template.call();
      } catch (RuntimeException e) {
        fail("helm template " + chart + (valuesFile.isEmpty() ? "" : " -f " + valuesFile) + ": " + e.getMessage());
        return;
      }
      String fullname = expectedFullname(valuesFile);
      Map<String, Integer> kinds = new TreeMap<>();
      for (Object document : new Yaml().loadAll(rendered)) {
        if (document == null) continue;
        @SuppressWarnings("unchecked") Map<String, Object> object = (Map<String, Object>) document;
        String key = object.get("apiVersion") + "/" + object.get("kind");
        String name = key + " " + ((Map<?, ?>) object.get("metadata")).get("name");
        // Release "rewind": rewind-api, never rewind-rewind-api; the overrides rename everything.
        String objectName = String.valueOf(((Map<?, ?>) object.get("metadata")).get("name"));
        if (!(objectName.equals(fullname) || objectName.startsWith(fullname + "-")) || objectName.contains("rewind-rewind"))
          fail(name + (valuesFile.isEmpty() ? "" : " (" + valuesFile + ")") + ": named " + objectName + ", expected " + fullname + " or " + fullname + "-<component>");
        Validator validator = MODELS.get(key);
        if (validator == null) fail(name + ": no Kubernetes model to check it against (add it to CheckChart.MODELS)");
        try {
          validator.validate(gson.toJsonTree(object).getAsJsonObject());
        } catch (Exception e) {
          fail(name + (valuesFile.isEmpty() ? "" : " (" + valuesFile + ")") + ": " + e.getMessage());
        }
        kinds.merge((String) object.get("kind"), 1, Integer::sum);
      }
      System.out.println("helm template " + chart + (valuesFile.isEmpty() ? "" : " -f " + valuesFile) + ": " + kinds + ", each valid against the Kubernetes " + "API models");
    }
  }

  /** What the chart's fullname helper should give for release "rewind" with this values file. */
  static String expectedFullname(String valuesFile) throws Exception {
    Map<?, ?> values = valuesFile.isEmpty() ? Map.of() : (Map<?, ?>) new Yaml().load(java.nio.file.Files.readString(Path.of(valuesFile)));
    Object full = values.get("fullnameOverride");
    if (full instanceof String s && !s.isEmpty()) return s;
    Object name = values.get("nameOverride");
    String chartName = name instanceof String s && !s.isEmpty() ? s : "rewind";
    return "rewind".contains(chartName) ? "rewind" : "rewind-" + chartName;
  }

  static void fail(String message) {
    System.err.println(message);
    System.exit(1);
  }
}
