ANSWERS = {"step 1.1 of \"2014 S/S is the debut album of a South Korean boy group that was formed by who?\"":"YG Entertainment"}

def find_entity_ef921f2d4bee(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
