"""java.util.regex in Python (:mod:`.javaregex`): a base utility, below config (a properties
directory's ``?filter=``) and routing (key filters, local target filters)."""
